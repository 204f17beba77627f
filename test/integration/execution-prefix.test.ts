// `/runbook status` and `watch` through Bolt with a short id: a unique prefix (≥ 8 characters) among
// recent executions finds the execution; an ambiguous one lists the candidates; a too-short one says so.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Workflow } from '../../src/api/schemas.ts';
import { ephemeralContaining, type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
let runbook: Workflow;
beforeAll(async () => {
  h = await startHarness();
  const page = await h.runtime.api.workflows.list({ isService: true, filter: '' });
  runbook = page.items.find((w) => w.name === 'Find Crashlooping Pods') ?? page.items[0]!;
});
afterAll(async () => {
  await h.stop();
});

async function runOnce(): Promise<string> {
  const { executionIds } = await h.runtime.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params: {} });
  return executionIds[0]!;
}

/** Two executions whose ids share their first 8 characters (copies of a real one, ids chosen). */
function twins(template: string): [string, string] {
  const record = h.emulator.state.executions.byId.get(template)!;
  const ids: [string, string] = ['abcdef12-1111-4000-8000-000000000001', 'abcdef12-2222-4000-8000-000000000002'];
  for (const [i, id] of ids.entries()) {
    h.emulator.state.executions.add({
      ...record,
      id,
      createMs: record.createMs + i + 1,
      received: { ...record.received },
    });
  }
  return ids;
}

it('finds an execution by a unique prefix of its id', async () => {
  const id = await runOnce();
  await h.user().command(`status ${id.slice(0, 8)}`, 'C01OPS');
  const answer = await waitFor(() => ephemeralContaining(h.fake, id), 'the status');
  expect(JSON.stringify(answer.blocks)).not.toContain('matches');
  expect(JSON.stringify(answer.blocks)).toContain(runbook.name);
});

it('lists the candidates of an ambiguous prefix, for status and for watch', async () => {
  const [a, b] = twins(await runOnce());
  await h.user().command('status abcdef12', 'C01OPS');
  const listed = await waitFor(() => ephemeralContaining(h.fake, 'matches 2 recent executions'), 'candidates');
  const text = JSON.stringify(listed.blocks);
  expect(text).toContain(a);
  expect(text).toContain(b);
  expect(text).toContain('/runbook status &lt;id&gt;');
  expect(text).toContain('execution_status');

  await h.user().command('watch abcdef12', 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, '/runbook watch &lt;id&gt;'), 'watch candidates');
  expect(await h.runtime.store.watches.get(a)).toBeNull();

  // A longer prefix picks one.
  const since = h.fake.state.ephemerals.length;
  await h.user().command(`status ${b.slice(0, 13)}`, 'C01OPS');
  const one = await waitFor(() => h.fake.state.ephemerals.slice(since).at(-1), 'the answer');
  expect(JSON.stringify([one.text, one.blocks])).not.toContain('matches');
  expect(JSON.stringify(one.blocks)).toContain(b);
});

it('says a prefix is too short, or matches nothing', async () => {
  await h.user().command('status abc', 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'at least its first 8 characters'), 'too short');
  await h.user().command('status 99999999', 'C01OPS');
  await waitFor(() => ephemeralContaining(h.fake, 'No recent execution has an id starting with'), 'no match');
});
