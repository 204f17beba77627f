import type { ModalView } from '@slack/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSlackFixture, section, startFixture } from './fake-slack-fixture.ts';

let f: FakeSlackFixture;

beforeEach(async () => {
  f = await startFixture();
});

afterEach(async () => {
  await f.fake.close();
});

function modal(title: string, extra: Partial<ModalView> = {}): ModalView {
  return {
    type: 'modal',
    callback_id: 'run_modal',
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: 'Run' },
    blocks: [
      {
        type: 'input',
        block_id: 'region',
        label: { type: 'plain_text', text: 'Region' },
        element: { type: 'plain_text_input', action_id: 'value' },
      },
    ],
    private_metadata: '{"runbook":"r1"}',
    ...extra,
  };
}

async function errorOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return (error as { data: Record<string, unknown> }).data;
  }
  throw new Error('expected the call to fail');
}

describe('views.open', () => {
  it('opens a modal with a fresh trigger and answers the view as Slack does', async () => {
    const trigger = f.fake.newTriggerId('U01ALICE');
    const res = await f.client.views.open({ trigger_id: trigger, view: modal('Run runbook') });
    expect(res.ok).toBe(true);
    const view = res.view as Record<string, unknown>;
    expect(view).toMatchObject({
      type: 'modal',
      team_id: 'T0SANDBOX',
      callback_id: 'run_modal',
      private_metadata: '{"runbook":"r1"}',
      state: { values: {} },
      previous_view_id: null,
      root_view_id: view.id,
      app_id: 'A0SANDBOX',
      bot_id: 'B0BOT',
      clear_on_close: false,
      notify_on_close: false,
    });
    expect(view.id).toMatch(/^V[A-Z0-9]{10}$/);
    expect(view.hash).toMatch(/^\d+\.[0-9a-f]{8}$/);
    expect(f.fake.state.views[view.id as string]).toMatchObject({ user_id: 'U01ALICE', type: 'modal', closed: false });
    expect(f.fake.state.modalStacks.U01ALICE).toEqual([view.id]);
  });

  it('answers expired_trigger_id after 3 seconds, exchanged_trigger_id on reuse, invalid_trigger_id for unknown', async () => {
    const stale = f.fake.newTriggerId('U01ALICE');
    f.clock.ms += 3_001;
    expect((await errorOf(f.client.views.open({ trigger_id: stale, view: modal('A') }))).error).toBe(
      'expired_trigger_id',
    );
    const fresh = f.fake.newTriggerId('U01ALICE');
    f.clock.ms += 2_999;
    await f.client.views.open({ trigger_id: fresh, view: modal('A') });
    expect((await errorOf(f.client.views.open({ trigger_id: fresh, view: modal('A') }))).error).toBe(
      'exchanged_trigger_id',
    );
    expect((await errorOf(f.client.views.open({ trigger_id: '1.2.abc', view: modal('A') }))).error).toBe(
      'invalid_trigger_id',
    );
  });

  it('rejects a view that breaks Block Kit limits with invalid_arguments and [ERROR] messages', async () => {
    const data = await errorOf(
      f.client.views.open({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('A title far longer than 24') }),
    );
    expect(data.error).toBe('invalid_arguments');
    expect((data.response_metadata as { messages: string[] }).messages[0]).toMatch(
      /^\[ERROR\] modal title longer than 24 \[json-pointer:\/view\/title\/text\]$/,
    );
  });

  it('answers view_too_large for an oversized view', async () => {
    const huge = modal('Big', { private_metadata: 'x'.repeat(260_000) });
    const data = await errorOf(f.client.views.open({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: huge }));
    expect(data.error).toBe('view_too_large');
  });
});

describe('views.push / views.update / views.publish', () => {
  it('pushes onto the stack with root and previous ids, up to the push limit', async () => {
    const opened = await f.client.views.open({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('One') });
    const rootId = opened.view?.id as string;
    const pushed = await f.client.views.push({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('Two') });
    expect(pushed.view).toMatchObject({ root_view_id: rootId, previous_view_id: rootId });
    await f.client.views.push({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('Three') });
    expect(f.fake.state.modalStacks.U01ALICE).toHaveLength(3);
    const data = await errorOf(f.client.views.push({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('4') }));
    expect(data.error).toBe('push_limit_reached');
  });

  it('updates by view_id with a matching hash and answers hash_conflict for a stale one', async () => {
    const opened = await f.client.views.open({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('One') });
    const { id, hash } = opened.view as { id: string; hash: string };
    const updated = await f.client.views.update({ view_id: id, hash, view: modal('Updated') });
    expect(updated.view).toMatchObject({ id, title: { text: 'Updated' } });
    expect(updated.view?.hash).not.toBe(hash);
    const data = await errorOf(f.client.views.update({ view_id: id, hash, view: modal('Again') }));
    expect(data.error).toBe('hash_conflict');
    expect((await errorOf(f.client.views.update({ view_id: 'VNOPE', view: modal('x') }))).error).toBe('not_found');
  });

  it('updates by external_id and keeps what the user typed into surviving inputs', async () => {
    const opened = await f.client.views.open({
      trigger_id: f.fake.newTriggerId('U01ALICE'),
      view: modal('One', { external_id: 'run-r1' }),
    });
    const stored = f.fake.state.views[opened.view?.id as string]!;
    stored.state.values = { region: { value: { type: 'plain_text_input', value: 'eu-west-1' } } };
    const updated = await f.client.views.update({
      external_id: 'run-r1',
      view: modal('Two', { external_id: 'run-r1' }),
    });
    expect(updated.view?.state).toEqual({
      values: { region: { value: { type: 'plain_text_input', value: 'eu-west-1' } } },
    });
    const withoutInput = modal('Three', { external_id: 'run-r1', blocks: [section('gone')], submit: undefined });
    const cleared = await f.client.views.update({ external_id: 'run-r1', view: withoutInput });
    expect(cleared.view?.state).toEqual({ values: {} });
  });

  it('publishes a Home tab per user, keeping its id and honouring hash', async () => {
    const home = { type: 'home' as const, blocks: [section('Welcome')] };
    const first = await f.client.views.publish({ user_id: 'U02BOB', view: home });
    expect(first.view).toMatchObject({ type: 'home', blocks: home.blocks });
    const second = await f.client.views.publish({ user_id: 'U02BOB', view: home, hash: first.view?.hash as string });
    expect(second.view?.id).toBe(first.view?.id);
    expect(f.fake.state.homeViews.U02BOB).toBe(first.view?.id);
    const data = await errorOf(f.client.views.publish({ user_id: 'U02BOB', view: home, hash: 'stale.hash' }));
    expect(data.error).toBe('hash_conflict');
    expect((await errorOf(f.client.views.publish({ user_id: 'U404', view: home }))).error).toBe('user_not_found');
  });

  it('emits view events and closes a modal stack on request', async () => {
    const kinds: string[] = [];
    f.fake.on('view', (e: { kind: string }) => kinds.push(e.kind));
    const opened = await f.client.views.open({ trigger_id: f.fake.newTriggerId('U01ALICE'), view: modal('One') });
    await f.client.views.publish({ user_id: 'U01ALICE', view: { type: 'home', blocks: [section('x')] } });
    expect(kinds).toEqual(['opened', 'published']);
    f.fake.closeModal('U01ALICE');
    expect(f.fake.state.views[opened.view?.id as string]?.closed).toBe(true);
    expect((await errorOf(f.client.views.update({ view_id: opened.view?.id as string, view: modal('x') }))).error).toBe(
      'not_found',
    );
  });
});
