// Runbook health through the real Bolt pipeline against the emulator's month of history:
// `/runbook health <runbook>` (numbers checked against what the emulator holds), `/runbook health` (the
// failing most, only runbooks the person may view), `show`, and the list's badge read from the cache only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/health/runbook-health.ts';
import { HEALTH_PAGES, SCAN_PAGES } from '../../src/runs/health.ts';
import { checkBlocks } from '../../src/slack/kit/limits.ts';
import { type Harness, waitFor } from '../support/bot-harness.ts';
import { startHealthHarness } from '../support/health-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHealthHarness();
});
afterAll(async () => {
  await h.stop();
});

const IAM = 'Rotate IAM Access Keys';
const RESTART = 'Restart Kubernetes Deployment';

/** What the emulator holds for a runbook over the last 30 days. */
function truth(name: string) {
  const from = h.clock.now() - 30 * DAY_MS;
  const runs = [...h.emulator.state.executions.byId.values()].filter(
    (e) => e.workflowName === name && e.startMs >= from,
  );
  const failed = runs.filter((e) => e.status === 'EXECUTION_STATUS_FAILED');
  const succeeded = runs.filter((e) => e.status === 'EXECUTION_STATUS_SUCCEEDED');
  const reasons = new Map<string, number>();
  for (const e of failed) reasons.set(e.reason, (reasons.get(e.reason) ?? 0) + 1);
  const topReason = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  return { runs: runs.length, failed: failed.length, succeeded: succeeded.length, topReason };
}

interface Block {
  block_id?: string;
  text?: { text: string };
  accessory?: { action_id?: string; value?: string };
}
const blocksOf = (message: { blocks?: unknown[] }) => (message.blocks ?? []) as Block[];

function executionListCalls(): number {
  return h.emulator.state.requests.log.filter((r) => r.route === 'GET /v1alpha1/executions').length;
}

async function answer(user: string, text: string, needle: string) {
  const before = h.fake.state.ephemerals.length;
  await h.user(user).command(text, 'C01OPS');
  return waitFor(
    () =>
      h.fake.state.ephemerals
        .slice(before)
        .find((e) => e.user === user && JSON.stringify([e.text, e.blocks]).includes(needle)),
    `answer to ${text}`,
  );
}

describe('/runbook health <runbook>', () => {
  it('shows runs, success rate, durations, the strip and failure reasons as the emulator holds them', async () => {
    const t = truth(IAM);
    expect(t.failed).toBeGreaterThan(3);
    const calls = executionListCalls();
    const shown = await answer('U01ALICE', `health "${IAM}"`, 'health over the last 30 days');
    const text = JSON.stringify(shown.blocks);
    const rate = `${Math.round((t.succeeded / (t.succeeded + t.failed)) * 100)}%`;
    expect(text).toContain(`${t.runs} (${t.failed} failed)`);
    expect(text).toContain(rate);
    expect(text).toContain('Median duration');
    expect(text).toContain('p95 duration');
    // The last 10 outcomes as a strip of squares.
    const strip = text.match(/:large_(?:green|red)_square:/g) ?? [];
    expect(strip).toHaveLength(10);
    // The most common reason (as the emulator wrote it), with its count.
    expect(text).toContain(t.topReason.slice(0, 40));
    expect(text).toContain('as of just now');
    expect(text).toContain('usually takes about');
    expect(checkBlocks(shown.blocks ?? [], 'message')).toEqual([]);
    // Within the request bound.
    expect(executionListCalls() - calls).toBeLessThanOrEqual(HEALTH_PAGES);
    expect(executionListCalls() - calls).toBeGreaterThan(0);

    // Asked again at once: from the cache, no request.
    const again = executionListCalls();
    await answer('U01ALICE', `health "${IAM}"`, 'health over the last 30 days');
    expect(executionListCalls()).toBe(again);
  });

  it('a runbook the person may not view does not exist for them, and the refusal is audited', async () => {
    const shown = await answer('U03CAROL', `health "${RESTART}"`, 'No runbook matches');
    expect(JSON.stringify(shown)).not.toContain('health over');
    const audit = (await h.runtime.deps.access.audit.recent(50)).find(
      (e) => e.action === 'runbook.health' && e.userId === 'U03CAROL',
    );
    expect(audit).toMatchObject({ outcome: 'denied' });
  });

  it('several matches give a pick list whose choice shows that runbook’s health', async () => {
    const list = await answer('U01ALICE', 'health Postgres', 'Which one?');
    const vacuum = blocksOf(list).find((b) => b.text?.text.includes('Postgres Vacuum Analyze'));
    expect(vacuum?.accessory?.value).toContain('"next":"health"');
    const before = h.fake.state.responseUrlPosts.length;
    await h.user().act({ kind: 'ephemeral', ephemeral: list }, (el) => el.value === vacuum?.accessory?.value);
    const shown = await waitFor(
      () =>
        h.fake.state.responseUrlPosts
          .slice(before)
          .find((p) => JSON.stringify(p.body.blocks).includes('Postgres Vacuum Analyze*: health over')),
      'the picked runbook’s health',
    );
    expect(JSON.stringify(shown.body.blocks)).toContain(`${truth('Postgres Vacuum Analyze').runs} (`);
  });
});

describe('/runbook health (no runbook)', () => {
  it('lists the runbooks failing most, only those the person may view, within the scan bound', async () => {
    const calls = executionListCalls();
    const alice = await answer('U01ALICE', 'health', 'Runbooks failing most');
    expect(executionListCalls() - calls).toBeLessThanOrEqual(SCAN_PAGES);
    const sections = blocksOf(alice).filter((b) => b.block_id?.startsWith('health_'));
    const plain = (t: string) => t.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    const names = sections.map((b) => plain(b.text?.text.match(/^\*([^*]+)\*/)?.[1] ?? ''));
    // Ordered by failures, as the emulator holds them.
    const failures = names.map((n) => truth(n).failed);
    expect(failures.length).toBeGreaterThan(2);
    expect([...failures].sort((a, b) => b - a)).toEqual(failures);
    expect(names).toContain(RESTART);

    // Carol may not view "Restart *": it is not among hers; the scan is shared (no new request).
    const shared = executionListCalls();
    const carol = await answer('U03CAROL', 'health', 'Runbooks failing most');
    expect(JSON.stringify(carol.blocks)).not.toContain('Restart Kubernetes');
    expect(JSON.stringify(carol.blocks)).toContain(IAM);
    expect(executionListCalls()).toBe(shared);
  });
});

describe('show and list', () => {
  it('show includes the health summary', async () => {
    const shown = await answer('U01ALICE', `show "${RESTART}"`, 'Health, last 30 days');
    const text = JSON.stringify(shown.blocks);
    expect(text).toContain(`${truth(RESTART).runs} runs`);
    expect(text).toMatch(/median \d/);
    expect(text).toContain('as of');
  });

  it('the list shows a badge from the cache only: no request for executions', async () => {
    const calls = executionListCalls();
    const list = await answer('U01ALICE', 'list Rotate IAM', 'Runbooks');
    expect(executionListCalls()).toBe(calls);
    const text = JSON.stringify(list.blocks);
    const t = truth(IAM);
    expect(text).toContain(`${Math.round((t.succeeded / (t.succeeded + t.failed)) * 100)}% ok · ${t.runs} runs/30 d`);
    expect(text).toContain('Health badges');
    // A runbook never read has no badge.
    const quiet = await answer('U01ALICE', 'list Kubernetes Certificate Expiry', 'Runbooks');
    expect(JSON.stringify(quiet.blocks)).not.toContain('% ok');
  });
});

describe('App Home', () => {
  async function home(user: string, needle: string) {
    await h.user(user).openHome();
    return waitFor(() => {
      const v = h.fake.state.views[h.fake.state.homeViews[user] ?? ''];
      return v && JSON.stringify(v.view).includes(needle) ? v.view : undefined;
    }, `App Home of ${user}`);
  }

  it('shows the next 24 hours and the runbooks failing most, only those the person may view', async () => {
    const alice = await home('U01ALICE', 'Failing most');
    const blocks = (alice.blocks ?? []) as Block[];
    const forecast = blocks.find((b) => b.block_id === 'home_forecast')?.text?.text ?? '';
    // The demo's daily Vacuum at 05:00 GMT is due within 24 hours, shown as a date token.
    expect(forecast).toContain('*Postgres Vacuum Analyze*');
    expect(forecast).toContain('<!date^');
    expect(JSON.stringify(blocks)).toContain('Next 24 hours');
    const failing = blocks.find((b) => b.block_id === 'home_failing')?.text?.text ?? '';
    const first = failing.split('\n')[0] ?? '';
    const top = [...new Set([...h.emulator.state.executions.byId.values()].map((e) => e.workflowName))]
      .map((name) => ({ name, failed: truth(name).failed }))
      .sort((a, b) => b.failed - a.failed)[0]!;
    expect(first).toContain(`${top.failed} of ${truth(top.name).runs} failed`);
    expect(JSON.stringify(blocks)).toContain('as of');
    expect(checkBlocks(blocks as never, 'home')).toEqual([]);

    const carol = await home('U03CAROL', 'Failing most');
    const carolFailing = ((carol.blocks ?? []) as Block[]).find((b) => b.block_id === 'home_failing')?.text?.text;
    expect(carolFailing).toBeDefined();
    expect(carolFailing).not.toContain('Restart Kubernetes');
  });
});

describe('help', () => {
  it('names health', async () => {
    const shown = await answer('U01ALICE', 'help', 'health [runbook]');
    expect(JSON.stringify(shown.blocks)).toContain('health');
  });
});
