// `/runbook schedules <runbook> --next 7d` through Bolt with an every-minute schedule: one summary line
// ("every minute: 10,080 runs in 7 days"), not hundreds of runs each flagged as overlapping its neighbour.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

const NAME = 'Postgres Vacuum Analyze';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({});
  const runbook = [...h.emulator.state.workflows.byId.values()].find((r) => r.workflow.name === NAME)!.workflow;
  await h.runtime.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: '{}',
    schedule: '* * * * *',
  });
});
afterAll(async () => {
  await h.stop();
});

describe('forecast of a schedule firing every minute', () => {
  it('is one summary line, and the overlap flags are left to runs that collide', async () => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command(`schedules "${NAME}" --next 7d`, 'C01OPS');
    const shown = await waitFor(
      () =>
        h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify(e.blocks).includes('due in the next 7 days')),
      'forecast',
    );
    const text = JSON.stringify([shown.text, shown.blocks]);
    expect(text).toMatch(/Every minute[^"]*: 10,080 runs in 7 days/);
    const blocks = shown.blocks as { text?: { text?: string } }[];
    const lines = blocks.flatMap((b) => (b.text?.text ?? '').split('\n')).filter((l) => l.includes(NAME));
    // The summary plus the runbook's own daily runs (each colliding with the every-minute one), nothing more.
    expect(lines.length).toBeLessThan(20);
    expect(lines.filter((l) => l.includes('Every minute'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('overlaps')).length).toBeLessThanOrEqual(7);
  });
});
