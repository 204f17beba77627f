// The schedules list Edit was clicked on is redrawn in place once the edit is saved: the list's response_url
// travels (sealed) in the edit form's metadata, so the same message shows the new expression, not the old.
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';
import { SCALE_RUNBOOK } from '../support/run-form.ts';
import { submit as stateOf } from '../unit/forms/slack-state.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

it('saving an edit redraws the list it was opened from with the new cron', { timeout: 30_000 }, async () => {
  const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === SCALE_RUNBOOK)!;
  const schedule = await h.runtime.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: JSON.stringify({ namespace: 'default', deployment: 'edit-list', replicas: 2 }),
    schedule: '0 3 * * *',
  });
  const before = h.fake.state.ephemerals.length;
  await h.user().command(`schedules "${SCALE_RUNBOOK}"`, 'C01OPS');
  const list = await waitFor(
    () => h.fake.state.ephemerals.slice(before).find((e) => JSON.stringify(e.blocks ?? []).includes(schedule.id)),
    'the schedules list',
  );
  expect(JSON.stringify(list.blocks)).toContain('0 3 * * *');

  await h
    .user()
    .act(
      { kind: 'ephemeral', ephemeral: list },
      (el) => el.action_id === ACTIONS.scheduleEdit && String(el.value).includes(schedule.id),
    );
  const form = await waitFor(() => modalContaining(h, 'field_replicas'), 'the edit form');
  const state = {
    ...stateOf(form.view.blocks as KnownBlock[], { [BLOCKS.preset]: { selected_option: { value: 'custom' } } }),
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '45 22 * * 5' } },
  };
  const listsBefore = h.fake.state.ephemerals.filter((e) => JSON.stringify(e.blocks ?? []).includes(schedule.id));
  await h.user().submit(form.id, state as Record<string, Record<string, Record<string, unknown>>>);

  // The same message (not a new one) now shows the new expression and no longer the old one.
  await waitFor(() => JSON.stringify(list.blocks).includes('45 22 * * 5'), 'the list redrawn with the new cron');
  expect(list.replaced).toBe(true);
  expect(JSON.stringify(list.blocks)).not.toContain('0 3 * * *');
  const listsAfter = h.fake.state.ephemerals.filter((e) => JSON.stringify(e.blocks ?? []).includes(schedule.id));
  expect(listsAfter).toHaveLength(listsBefore.length);
  expect((await h.runtime.api.schedules.get(schedule.id)).schedule).toBe('45 22 * * 5');
});
