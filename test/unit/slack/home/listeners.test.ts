// App Home's listeners, called as Bolt would call them, over the real use cases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appHomeOpened, homeRefreshClicked } from '../../../../src/slack/home/events.ts';
import type { EventArgs } from '../../../../src/slack/kit/listen.ts';
import { TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import { type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

const opened = (tab: string) =>
  ({ event: { type: 'app_home_opened', user: 'U01ALICE', tab } }) as unknown as EventArgs<'app_home_opened'>;

describe('home listeners', () => {
  it('appHomeOpened publishes the Home tab of the person who opened it', async () => {
    await appHomeOpened(opened('home'), env.context('U01ALICE', null));
    const published = env.called('views.publish');
    expect(published).toHaveLength(1);
    expect(published[0]!.args.user_id).toBe('U01ALICE');
    expect((published[0]!.args.view as { type: string }).type).toBe('home');
  });

  it('appHomeOpened ignores the Messages tab', async () => {
    await appHomeOpened(opened('messages'), env.context('U01ALICE', null));
    expect(env.called('views.publish')).toEqual([]);
  });

  it('homeRefreshClicked acks and publishes the Home tab again', async () => {
    await homeRefreshClicked(clickOf(env, 'U01ALICE', ''), env.context('U01ALICE', null));
    expect(env.acks).toEqual([undefined]);
    expect(env.called('views.publish').map((c) => c.args.user_id)).toEqual(['U01ALICE']);
  });
});
