// The browse feature's listeners, called as Bolt would call them, over the real use cases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detailsClicked, listCategoryChosen, listPageClicked } from '../../../../src/slack/browse/browse-actions.ts';
import { encodeListState } from '../../../../src/slack/kit/runbook-list.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

describe('browse listeners', () => {
  it('listPageClicked shows that page of the list in place of the old one', async () => {
    const value = encodeListState({ w: '', s: 'all', c: null, p: 1 });
    await listPageClicked(clickOf(env, 'U01ALICE', value), env.context());
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(env.replies[0]!.text).toMatch(/page 2/);
  });

  it('listCategoryChosen filters the list by the chosen category, from the first page', async () => {
    const state = encodeListState({ w: '', s: 'all', c: null, p: 3 });
    const action = {
      type: 'static_select',
      block_id: `list_filters:${state}`,
      selected_option: { value: 'CATEGORY_TYPE_SRE' },
    };
    await listCategoryChosen(clickOf(env, 'U01ALICE', '', { actions: [action] }), env.context());
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(env.replies[0]!.text).toMatch(/page 1/);
  });

  it('detailsClicked shows the runbook', async () => {
    const runbook = await env.runbook(PLAIN);
    await detailsClicked(clickOf(env, 'U01ALICE', runbook.id), env.context());
    expect(JSON.stringify(env.replies)).toContain(PLAIN);
  });

  it('detailsClicked never names a runbook the person may not view', async () => {
    const runbook = await env.runbook(PLAIN);
    await detailsClicked(clickOf(env, 'U03CAROL', runbook.id), env.context('U03CAROL'));
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies)).not.toContain(PLAIN);
  });
});
