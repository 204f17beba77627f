// An execution id pasted as the bot shows it — in backticks, in <…>, or ending a sentence with a full stop —
// is the id, for `status` and `watch` alike, typed or in a mention. Through the real Bolt pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

function anExecution() {
  const e = [...h.emulator.state.executions.byId.values()].find((x) => x.status.includes('SUCCEEDED'));
  expect(e).toBeDefined();
  return e!;
}

describe('a pasted execution id', () => {
  it.each(['`ID`', '<ID>', 'ID.', '`ID`.', '`PREFIX`'])('/runbook status %s shows that execution', async (shape) => {
    const e = anExecution();
    const typed = shape.replace('ID', e.id).replace('PREFIX', e.id.slice(0, 8));
    const before = h.fake.state.ephemerals.length;
    await h.user().command(`status ${typed}`, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals[before], 'the answer');
    expect(answer.text).not.toMatch(/No recent execution|not valid|No execution/);
    expect(JSON.stringify(answer.blocks)).toContain(e.id);
  });

  it('@runbook-bot watch `id` follows it', async () => {
    const e = anExecution();
    const { message } = await h.user().mention(`watch \`${e.id}\``, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals.find((x) => x.thread_ts === message.ts), 'the answer');
    expect(answer.text).toContain(e.id);
    expect(answer.text).not.toMatch(/No recent execution|not valid|No execution/);
  });
});
