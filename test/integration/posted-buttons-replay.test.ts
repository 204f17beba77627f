// What is already posted keeps working: buttons recorded from main 72196f9 (action ids and values as they
// sit in messages people still have) are clicked through the real Bolt pipeline and must still answer
// with what they did then, not an error.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';
import { buttonIn } from '../support/button-message.ts';
import { SCALE_RUNBOOK } from '../support/run-form.ts';

interface Recorded {
  action_id: string;
  value: string;
  answers: 'ephemeral' | 'modal';
  says: string;
}
const { buttons } = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '../fixtures/posted-buttons-72196f9.json'), 'utf8'),
) as { buttons: Recorded[] };

let h: Harness;
const ids: Record<string, string> = {};
beforeAll(async () => {
  h = await startHarness();
  const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === SCALE_RUNBOOK)!;
  const params = { namespace: 'replay', deployment: 'web', replicas: 2 };
  const schedule = await h.runtime.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: JSON.stringify(params),
    schedule: '0 5 * * *',
  });
  const { executionIds } = await h.runtime.api.workflows.run(runbook.id, { proxyId: 'proxy-dev', params });
  Object.assign(ids, { runbook: runbook.id, schedule: schedule.id, execution: executionIds[0]! });
});
afterAll(async () => {
  await h.stop();
});

const fill = (text: string) => text.replace(/\{(runbook|schedule|execution)\}/g, (_, k: string) => ids[k]!);

it.each(buttons)('$action_id with $value still works', async (recorded) => {
  const user = h.user();
  for (let top = user.topModal(); top; top = user.topModal()) await user.close(top.id);
  const value = fill(recorded.value);
  const since = h.fake.state.ephemerals.length;
  await user.act(buttonIn('C01OPS', recorded.action_id, value), recorded.action_id);
  const says = fill(recorded.says);
  if (recorded.answers === 'modal') {
    const modal = await waitFor(() => {
      const top = user.topModal();
      const text = JSON.stringify(top?.view ?? '');
      return top && !text.includes('Loading') ? text : undefined;
    }, 'the modal');
    expect(modal).toContain(says);
    expect(modal).not.toMatch(/could not|no longer exists|has expired|You may not/i);
  } else {
    const answer = await waitFor(
      () => h.fake.state.ephemerals.slice(since).find((e) => JSON.stringify([e.text, e.blocks]).includes(says)),
      `an answer with ${says}`,
    );
    expect(JSON.stringify([answer.text, answer.blocks])).not.toMatch(
      /could not|no longer exists|has expired|You may not/i,
    );
  }
});
