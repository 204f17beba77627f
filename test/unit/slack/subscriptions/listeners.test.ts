// The subscriptions feature's listeners, called as Bolt would call them, over the real use cases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  subscriptionPickClicked,
  unsubscribeClicked,
} from '../../../../src/slack/subscriptions/subscription-actions.ts';
import { encodeSubscriptionPick } from '../../../../src/slack/subscriptions/subscription-list.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

describe('subscriptions listeners', () => {
  it('subscriptionPickClicked subscribes the channel the click came from to the picked runbook', async () => {
    const runbook = await env.runbook(PLAIN);
    const value = encodeSubscriptionPick({ id: runbook.id, f: true });
    await subscriptionPickClicked(clickOf(env, 'U01ALICE', value), env.context('U01ALICE', 'C0SUBPICK'));
    const stored = await env.store.subscriptions.listForChannel('C0SUBPICK');
    expect(stored.map((s) => [s.runbookId, s.failuresOnly])).toEqual([[runbook.id, true]]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(env.replies[0]!.text).toContain(PLAIN);
  });

  it('subscriptionPickClicked refuses a runbook the person may not view, without naming it', async () => {
    const runbook = await env.runbook(PLAIN);
    const value = encodeSubscriptionPick({ id: runbook.id, f: false });
    await subscriptionPickClicked(clickOf(env, 'U03CAROL', value), env.context('U03CAROL', 'C0SUBCAROL'));
    expect(await env.store.subscriptions.listForChannel('C0SUBCAROL')).toEqual([]);
    expect(JSON.stringify(env.replies)).not.toContain(PLAIN);
  });

  it('unsubscribeClicked removes the subscription of the channel the click came from', async () => {
    const runbook = await env.runbook(PLAIN);
    await subscriptionPickClicked(
      clickOf(env, 'U01ALICE', encodeSubscriptionPick({ id: runbook.id, f: false })),
      env.context('U01ALICE', 'C0SUBREMOVE'),
    );
    env.reset();
    await unsubscribeClicked(clickOf(env, 'U01ALICE', runbook.id), env.context('U01ALICE', 'C0SUBREMOVE'));
    expect(await env.store.subscriptions.listForChannel('C0SUBREMOVE')).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
  });
});
