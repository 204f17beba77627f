// Every path starts the same run: one runbook, the same typed values (`deployment` only — `namespace` and
// `replicas` are left to the schema's defaults), started through each entry point that takes typed values
// through the real Bolt pipeline: `run … --now`, an alias used with --now, and the Workflow Builder step.
// The emulator must see identical run bodies (params with the schema defaults, proxy), every confirmation
// must show the same inputs, and the audit records may differ only in the entry point they name.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { ACTIONS, FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { SCALE_RUNBOOK } from '../support/run-form.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const bodies = () =>
  [...h.emulator.state.executions.byId.values()]
    .filter((e) => e.workflowName === SCALE_RUNBOOK)
    .map((e) => ({ proxyId: e.received.proxyId, params: JSON.parse(e.received.params ?? '{}') }));

/** The inputs a --now confirmation (its blocks as shown) says will be sent. */
const inputsShown = (shown: string) => shown.match(/(namespace|replicas|deployment)\*: [^"\\]*/gi)?.sort();

/** Runs `command` and clicks Run on its confirmation; returns the confirmation as it was shown (it is replaced after). */
async function confirmAndRun(command: string): Promise<string> {
  const before = h.fake.state.ephemerals.length;
  await h.user().command(command, 'C01OPS');
  const confirm = await waitFor(
    () =>
      h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun)),
    `the confirmation of ${command}`,
  );
  const shown = JSON.stringify(confirm.blocks);
  const runs = bodies().length;
  await h.user().act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
  await waitFor(() => bodies().length > runs, 'the run');
  return shown;
}

it('the same typed values make the same run from --now, an alias and the Workflow Builder step', async () => {
  const line = await confirmAndRun(`run "${SCALE_RUNBOOK}" deployment=parity --now`);
  await h.user().command(`alias add parity "${SCALE_RUNBOOK}" deployment=parity`, 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'Alias `parity`'), 'alias saved');
  const alias = await confirmAndRun('parity --now');
  const runs = bodies().length;
  await h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
    runbook: SCALE_RUNBOOK,
    inputs: JSON.stringify({ deployment: 'parity' }),
    channel: 'C01OPS',
    invoking_user: 'U01ALICE',
  });
  await waitFor(() => bodies().length > runs, 'the step run');

  const [first, ...others] = bodies();
  expect(first?.params).toMatchObject({ deployment: 'parity', namespace: 'default', replicas: 3 });
  for (const other of others) expect(other).toEqual(first);
  expect(others).toHaveLength(2);
  // Both confirmations show the same inputs, the defaults included.
  expect(inputsShown(line)).toEqual(inputsShown(alias));
  expect(inputsShown(line)).toEqual(['Deployment*: `parity`', 'Namespace*: `default`', 'Replicas*: `3`']);

  const starts = (await h.runtime.store.audit.recent(50)).filter(
    (e) => e.outcome === 'ok' && /^(run\.start|workflow\.run)$/.test(e.action) && e.detail?.includes('parity'),
  );
  expect(starts.map((e) => e.action).sort()).toEqual(['run.start', 'run.start', 'run.start']);
  const withoutIds = (d: string | null) => (d ?? '').replace(/executions [^;]+;/, '');
  expect(new Set(starts.map((e) => withoutIds(e.detail))).size).toBe(1);
});
