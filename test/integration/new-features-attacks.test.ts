// The session's new surfaces (health, the forecast, Pause / Skip / Resume, break-glass) attacked through
// the real Bolt pipeline: a person without `view` (by a tag rule) must never meet a hidden runbook in the
// failing list, App Home, the forecast or a refusal, whatever button payload they forge; a runbook named
// with edge spaces is still the same runbook to the policy; what a person narrows a command to is honoured.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS } from '../../src/slack/kit/ids.ts';
import { encodeScheduleRef } from '../../src/slack/schedules/schedule-list.ts';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const POLICY = `
rules:
  - name: carol does not see secret ops
    effect: deny
    actions: [view]
    users: [U03CAROL]
    runbooks: { tags: [secret-ops] }
`;
const CAROL = 'U03CAROL';
/** A runbook with a month of history (many failures), hidden from Carol by its tag, named with edge spaces. */
const IAM = 'Rotate IAM Access Keys';
const IAM_SPACED = ` ${IAM}  `;
/** A runbook with history whose namesake (another runbook of the same name) is hidden from Carol. */
const LOGS = 'Collect Kubernetes Pod Logs';
/** A runbook with a demo schedule, hidden from Carol by its tag. */
const CERTS = 'Check Kubernetes Certificate Expiry';

let h: Harness;
let certScheduleId: string;
let certRunbookId: string;
let iamId: string;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'attacks-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({
    env: { POLICY_FILE: path.join(dir, 'policy.yaml') },
    emulator: { recentHistory: true },
    clockStart: Date.now(),
  });
  const records = [...h.emulator.state.workflows.byId.values()];
  const iam = records.find((r) => r.workflow.name === IAM)!;
  iam.workflow.name = IAM_SPACED;
  iam.workflow.tags = [...iam.workflow.tags, 'secret-ops'];
  iamId = iam.workflow.id;
  for (const e of h.emulator.state.executions.byId.values()) if (e.workflowName === IAM) e.workflowName = IAM_SPACED;
  const namesake = records.find((r) => r.workflow.name === 'Find Long Running Postgres Queries')!;
  namesake.workflow.name = LOGS;
  namesake.workflow.tags = [...namesake.workflow.tags, 'secret-ops'];
  const certs = records.find((r) => r.workflow.name === CERTS)!;
  certs.workflow.tags = [...certs.workflow.tags, 'secret-ops'];
  certRunbookId = certs.workflow.id;
  h.runtime.deps.catalog.invalidate();
  const schedule = [...h.emulator.state.schedules.byId.values()].find((s) => s.schedule.runbookName === CERTS)!;
  certScheduleId = schedule.schedule.id;
});
afterAll(async () => {
  await h.stop();
});

async function answer(user: string, text: string, needle: string | RegExp) {
  const before = h.fake.state.ephemerals.length;
  await h.user(user).command(text, 'C01OPS');
  return waitFor(() => {
    return h.fake.state.ephemerals.slice(before).find((e) => {
      if (e.user !== user) return false;
      const shown = JSON.stringify([e.text, e.blocks]);
      return typeof needle === 'string' ? shown.includes(needle) : needle.test(shown);
    });
  }, `answer to ${text}`);
}

/** A message in #ops holding one forged button. */
function forged(actionId: string, value: string): FakeMessage {
  return {
    type: 'message',
    channel: 'C01OPS',
    ts: `${Date.now() / 1000}`,
    text: '',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: actionId, value }] }],
  } as unknown as FakeMessage;
}

/** What Carol is shown after `act` (ephemerals and response_url posts to her). */
async function carolSees(act: () => Promise<unknown>, what: string): Promise<string> {
  const ephemerals = h.fake.state.ephemerals.length;
  const posts = h.fake.state.responseUrlPosts.length;
  await act();
  return waitFor(() => {
    const mine = h.fake.state.ephemerals.slice(ephemerals).filter((e) => e.user === CAROL);
    const replies = h.fake.state.responseUrlPosts.slice(posts);
    const shown = JSON.stringify([mine.map((e) => [e.text, e.blocks]), replies.map((p) => p.body)]);
    return mine.length + replies.length > 0 && !shown.includes('Loading') ? shown : undefined;
  }, what);
}

describe('a runbook hidden by a tag stays hidden', () => {
  it('Alice (no rule) sees it failing: the test would notice its name', async () => {
    const shown = await answer('U01ALICE', 'health', 'Runbooks failing most');
    expect(JSON.stringify(shown.blocks)).toContain(IAM);
    expect(JSON.stringify(shown.blocks)).toContain(LOGS);
  });

  it('the failing list of /runbook health leaves it out, although its name has edge spaces', async () => {
    const shown = await answer(CAROL, 'health', 'Runbooks failing most');
    expect(JSON.stringify([shown.text, shown.blocks])).not.toContain(IAM);
    // Executions carry only a name: one hidden runbook of that name keeps the name hidden.
    expect(JSON.stringify([shown.text, shown.blocks])).not.toContain(LOGS);
    expect(JSON.stringify(shown.blocks)).toContain('Find Crashlooping Pods');
  });

  it('App Home’s failing most leaves it out', async () => {
    await h.user(CAROL).openHome();
    const home = await waitFor(() => {
      const v = h.fake.state.views[h.fake.state.homeViews[CAROL] ?? ''];
      return v && JSON.stringify(v.view).includes('Failing most') ? v.view : undefined;
    }, 'Carol’s App Home');
    expect(JSON.stringify(home)).not.toContain(IAM);
    expect(JSON.stringify(home)).not.toContain(LOGS);
    expect(JSON.stringify(home)).not.toContain(CERTS);
  });

  it('the forecast leaves out the schedules of a hidden runbook', async () => {
    const alice = await answer('U01ALICE', 'schedules --next 7d', 'Runs due in the next 7 days');
    expect(JSON.stringify(alice.blocks)).toContain(CERTS);
    const carol = await answer(CAROL, 'schedules --next 7d', 'Runs due in the next 7 days');
    expect(JSON.stringify([carol.text, carol.blocks])).not.toContain(CERTS);
  });

  it('a forged Health pick of its id does not show its health or name it', async () => {
    const actionId = `${ACTIONS.pickRunbook}_0`;
    const shown = await carolSees(
      () =>
        h
          .user(CAROL)
          .act({ kind: 'message', message: forged(actionId, JSON.stringify({ id: iamId, next: 'health' })) }, actionId),
      'the answer to a forged health pick',
    );
    expect(shown).not.toContain(IAM);
    expect(shown).not.toContain('health over');
  });

  it('forged Pause, Skip next run and Resume of its schedule are refused without naming it; nothing changes', async () => {
    const before = h.emulator.state.schedules.byId.get(certScheduleId)!.schedule.schedule;
    for (const actionId of [ACTIONS.schedulePause, ACTIONS.scheduleSkip, ACTIONS.scheduleResume]) {
      const value = encodeScheduleRef({ id: certScheduleId, r: certRunbookId, n: 'forged' });
      const shown = await carolSees(
        () => h.user(CAROL).act({ kind: 'message', message: forged(actionId, value) }, actionId),
        `the answer to a forged ${actionId}`,
      );
      expect(shown).not.toContain(CERTS);
      expect(h.emulator.state.schedules.byId.get(certScheduleId)!.schedule.schedule).toBe(before);
      expect(await h.runtime.store.schedulePauses.get(certScheduleId)).toBeNull();
    }
  });

  it('break-glass for it answers like an unknown name, and is audited', async () => {
    const shown = await answer(CAROL, `freezes break "${CERTS}" --reason "prod is down"`, /runbook/);
    expect(JSON.stringify([shown.text, shown.blocks]).replaceAll(CERTS, '')).not.toContain('Certificate');
    const audit = (await h.runtime.deps.access.audit.recent(50)).find(
      (e) => e.action === 'freeze.break' && e.userId === CAROL,
    );
    expect(audit).toMatchObject({ outcome: 'denied' });
  });
});

describe('what a person narrows a command to is honoured', () => {
  it('schedules <runbook> --next 7d lists only that runbook’s runs, and says so', async () => {
    const shown = await answer('U01ALICE', 'schedules "Postgres Vacuum Analyze" --next 7d', 'due in the next 7 days');
    const text = JSON.stringify([shown.text, shown.blocks]);
    expect(text).toContain('Runs of Postgres Vacuum Analyze due in the next 7 days');
    expect(text).toContain('7 runs of Postgres Vacuum Analyze due');
    expect(text).not.toContain('Find Unattached EBS Volumes');
  });

  it('a runbook that is not one (or is hidden) gets the closest names, not every schedule', async () => {
    const shown = await answer(CAROL, `schedules "${CERTS}" --next 24h`, 'No runbook matches');
    expect(JSON.stringify([shown.text, shown.blocks]).replaceAll(CERTS, '')).not.toContain('Certificate');
    expect(JSON.stringify(shown.blocks)).not.toContain('Postgres Vacuum Analyze*');
  });
});
