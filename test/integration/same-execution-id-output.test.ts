// Two workspaces whose Runbook API tenants hand out the SAME execution id for a run with a long output, through
// the real runtime (Bolt's OAuth installer, the fake Slack, the emulator serving both tenants by key): each
// workspace gets its own output file, once, in its own card's thread, with its own token — the upload claimed
// in one never stops the other's (uploads are kept per installation and execution id).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { type OAuthHarness, until } from '../support/oauth-harness.ts';
import { startTwoTenants, WORKSPACE_A, WORKSPACE_B } from '../support/tenant-flows.ts';

const KEY_B = 'tenant-b-same-output-key-0123456789';
const LOGS = 'Collect Kubernetes Pod Logs';
const A = WORKSPACE_A;
const B = WORKSPACE_B;

let h: OAuthHarness;
let tenantB: EmulatorState;
beforeAll(async () => {
  // Vacuum brings the tenant's demo schedules, whose proxy the workspace then offers.
  ({ h, tenantB } = await startTwoTenants(KEY_B, [LOGS, 'Postgres Vacuum Analyze']));
}, 30_000);
afterAll(() => h?.stop());

/** `/runbook run … --now` as `who`, in C01OPS (shared by both workspaces); Run when it asks to confirm. */
async function runIn(who: typeof A): Promise<void> {
  const since = h.fake.state.ephemerals.length;
  const user = h.user(who.user, who.installation);
  await user.command(`run "${LOGS}" namespace=web --now`, 'C01OPS');
  const answer = await until(
    async () =>
      h.fake.state.ephemerals
        .slice(since)
        .find(
          (e) =>
            e.user === who.user &&
            (JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun) || /started/.test(e.text ?? '')),
        ),
    `${who.installation}: the run`,
  );
  if (JSON.stringify(answer.blocks ?? []).includes(ACTIONS.confirmRun)) {
    await user.act({ kind: 'ephemeral', ephemeral: answer }, ACTIONS.confirmRun);
  }
}

it('the same execution id with a long output in two workspaces: each gets its own file, once, with its own token', async () => {
  h.emulator.state.nextExecutionIds.push('ex-logs');
  tenantB.nextExecutionIds.push('ex-logs');
  await runIn(A);
  await runIn(B);
  const cardOf = async (who: typeof A) =>
    (await until(
      async () => (await h.runtime.store.watches.get('ex-logs', who.installation))?.messageTs,
      `${who.installation}'s card`,
    ))!;
  const cards = { [A.installation]: await cardOf(A), [B.installation]: await cardOf(B) };

  h.clock.advance(60 * 60_000);
  for (const who of [A, B]) {
    await until(
      async () => (await h.runtime.store.outputUploads.get('ex-logs', who.installation))?.fileId,
      `${who.installation}'s file`,
    );
  }
  await h.runtime.watcher!.idle();
  const uploads = h.fake.state.calls.filter((c) => c.ok && c.method === 'files.completeUploadExternal');
  expect(uploads.map((c) => [c.installation, c.args.thread_ts]).sort()).toEqual(
    Object.entries(cards).sort() as Array<[string, string]>,
  );
  expect(await h.runtime.store.outputUploads.get('ex-logs', A.installation)).toMatchObject({
    fileId: expect.any(String),
  });
  expect(await h.runtime.store.outputUploads.get('ex-logs', B.installation)).toMatchObject({
    fileId: expect.any(String),
  });
  expect(await h.runtime.store.outputUploads.get('ex-logs')).toBeNull();
});
