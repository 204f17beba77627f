// Connect, Replace key and Disconnect, called as Bolt would call them: who may (admin, owner, the
// installer; a member is refused and audited), the key checked before it is saved and never shown,
// the audit trail without the key; App Home before and after.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  connectOpenClicked,
  connectRemoveClicked,
  connectSubmitted,
} from '../../../../src/slack/connect/connect-actions.ts';
import { settingsOpenClicked, settingsSubmitted } from '../../../../src/slack/connect/settings-actions.ts';
import { appHomeOpened } from '../../../../src/slack/home/events.ts';
import type { HandlerContext } from '../../../../src/slack/kit/handler-context.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { EventArgs, ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import type { ListenerEnv } from '../listener-env.ts';
import { INSTALLER, installationContextOf, KEY_A, KEY_B, type TenancyEnv, useTenancyEnvs } from '../tenancy-env.ts';

const ADMIN = 'U0ADMIN';
const OWNER = 'U0OWNER';
const MEMBER = 'U01ALICE';
const TEAM = 'T0CONNECT';

const envs = useTenancyEnvs(TABLE_POLICY);
let env: ListenerEnv;
let t: TenancyEnv;
beforeAll(() => {
  env = envs.listener();
  t = envs.tenancy();
});
beforeEach(async () => {
  env.reset();
  await t.connections.remove(TEAM);
});

const contextOf = (userId: string) => installationContextOf(env, t, TEAM, { admin: ADMIN, owner: OWNER }, userId);

function submission(ctx: HandlerContext, apiKey: string): ViewArgs {
  return {
    ack: env.ack,
    client: ctx.client,
    view: {
      id: 'V0CONNECT',
      callback_id: VIEWS.connect,
      private_metadata: '',
      state: { values: { [BLOCKS.connectKey]: { [ACTIONS.connectKey]: { type: 'plain_text_input', value: apiKey } } } },
    },
    body: { user: { id: ctx.userId } },
  } as unknown as ViewArgs;
}

const views = () => env.calls.filter((c) => c.method === 'views.open' || c.method === 'views.update');
const lastView = () => JSON.stringify(views().at(-1)?.args.view);

describe('connect listeners', () => {
  it('connectOpenClicked opens the form for an admin, an owner and the installer, and refuses a member', async () => {
    for (const user of [ADMIN, OWNER, INSTALLER]) {
      env.reset();
      const ctx = await contextOf(user);
      await connectOpenClicked({ ...clickOf(env, user, 'connect'), client: ctx.client }, ctx);
      expect(env.acks).toHaveLength(1);
      expect(views().map((c) => c.method)).toEqual(['views.open', 'views.update']);
      expect(lastView()).toContain(VIEWS.connect);
      expect(lastView()).toContain(BLOCKS.connectKey);
      // One allowed address: nobody is asked for one.
      expect(lastView()).not.toContain(BLOCKS.connectUrl);
    }
    env.reset();
    const ctx = await contextOf(MEMBER);
    await connectOpenClicked({ ...clickOf(env, MEMBER, 'connect'), client: ctx.client }, ctx);
    expect(lastView()).not.toContain(BLOCKS.connectKey);
    expect(lastView()).toContain('Only a workspace admin or owner');
    expect((await env.audit(1))[0]).toMatchObject({ action: 'api.connect', outcome: 'denied', userId: MEMBER });
  });

  it('connectSubmitted checks the key, saves it sealed, audits without it, and never shows it again', async () => {
    const ctx = await contextOf(ADMIN);
    await connectSubmitted(submission(ctx, 'wrong-key-0000'), ctx);
    expect(env.acks[0]).toMatchObject({ response_action: 'update' });
    expect(lastView()).toContain('refused this key');
    expect(lastView()).toContain(BLOCKS.connectKey);
    expect(await t.connections.status(TEAM)).toBeNull();
    expect((await env.audit(1))[0]).toMatchObject({ action: 'api.connect', outcome: 'error', target: TEAM });

    env.reset();
    await connectSubmitted(submission(ctx, KEY_B), ctx);
    expect(lastView()).toContain('Connected to');
    expect(await t.connections.status(TEAM)).toMatchObject({ connectedBy: ADMIN, baseUrl: t.emulator.url });
    const [entry] = await env.audit(1);
    expect(entry).toMatchObject({ action: 'api.connect', outcome: 'ok', userId: ADMIN, detail: t.emulator.url });
    expect(env.called('refreshHome')).toHaveLength(1);
    const everything = JSON.stringify([env.calls, env.acks, env.replies, await env.audit(20)]);
    expect(everything).not.toContain(KEY_B);
    expect(everything).not.toContain('wrong-key-0000');
    expect(JSON.stringify(await env.store.apiConnections.get(TEAM))).not.toContain(KEY_B);

    // A member cannot replace it, even by submitting the form.
    env.reset();
    const member = await contextOf(MEMBER);
    await connectSubmitted(submission(member, KEY_A), member);
    expect(lastView()).toContain('Only a workspace admin or owner');
    expect((await t.connections.status(TEAM))?.connectedBy).toBe(ADMIN);
  });

  it('connectSubmitted answers an empty key on the field, before anything is checked', async () => {
    const ctx = await contextOf(ADMIN);
    await connectSubmitted(submission(ctx, '  '), ctx);
    expect(env.acks).toEqual([
      { response_action: 'errors', errors: { [BLOCKS.connectKey]: 'Paste the Runbook API key.' } },
    ]);
    expect(views()).toEqual([]);
  });

  it('connectRemoveClicked removes the connection for an admin and refuses a member', async () => {
    await t.connections.connect(TEAM, { apiKey: KEY_A }, ADMIN);
    const member = await contextOf(MEMBER);
    await connectRemoveClicked({ ...clickOf(env, MEMBER, 'remove'), client: member.client }, member);
    expect(JSON.stringify(env.replies)).toContain('Only a workspace admin or owner');
    expect(await t.connections.status(TEAM)).not.toBeNull();

    env.reset();
    const owner = await contextOf(OWNER);
    await connectRemoveClicked({ ...clickOf(env, OWNER, 'remove'), client: owner.client }, owner);
    expect(JSON.stringify(env.replies)).toContain('disconnected');
    expect(await t.connections.status(TEAM)).toBeNull();
    expect((await env.audit(1))[0]).toMatchObject({ action: 'api.disconnect', outcome: 'ok', userId: OWNER });
  });

  it('App Home shows only the connection until connected, with Connect for those who may', async () => {
    const opened = (user: string) =>
      ({ event: { type: 'app_home_opened', user, tab: 'home' } }) as unknown as EventArgs<'app_home_opened'>;
    const published = () => JSON.stringify(env.called('views.publish').at(-1)?.args.view);
    await appHomeOpened(opened(ADMIN), await contextOf(ADMIN));
    expect(published()).toContain('not connected to a Runbook API yet: press *Connect* below and paste its API key');
    expect(published()).toContain(ACTIONS.connectOpen);
    expect(published()).not.toContain('Recent executions');
    // Read in Home itself: nobody is sent to "the app's Home tab".
    expect(published()).not.toContain('Home tab');
    await appHomeOpened(opened(MEMBER), await contextOf(MEMBER));
    expect(published()).toContain('not connected to a Runbook API yet');
    expect(published()).toContain(`<@${INSTALLER}>`);
    expect(published()).toContain('(who installed the app) can connect it here.');
    expect(published()).not.toContain('Home tab');
    expect(published()).not.toContain(ACTIONS.connectOpen);

    await t.connections.connect(TEAM, { apiKey: KEY_A }, ADMIN);
    await appHomeOpened(opened(ADMIN), await contextOf(ADMIN));
    expect(published()).toContain('Connected to');
    expect(published()).toContain(ACTIONS.connectRemove);
    expect(published()).toContain('Recent executions');
    expect(published()).not.toContain(KEY_A);
    await appHomeOpened(opened(MEMBER), await contextOf(MEMBER));
    expect(published()).toContain('Connected to');
    expect(published()).not.toContain(ACTIONS.connectRemove);
  });
});

describe('approval settings listeners', () => {
  function settingsForm(ctx: HandlerContext, group: string): ViewArgs {
    return {
      ack: env.ack,
      client: ctx.client,
      view: {
        id: 'V0SETTINGS',
        callback_id: VIEWS.settings,
        private_metadata: '',
        state: {
          values: { [BLOCKS.settingsGroup]: { [ACTIONS.settingsGroup]: { type: 'plain_text_input', value: group } } },
        },
      },
      body: { user: { id: ctx.userId } },
    } as unknown as ViewArgs;
  }

  it('settingsOpenClicked opens the form for an admin, and refuses a member (audited)', async () => {
    const admin = await contextOf(ADMIN);
    await settingsOpenClicked({ ...clickOf(env, ADMIN, 'settings'), client: admin.client }, admin);
    expect(env.acks).toEqual([undefined]);
    expect(views().map((c) => c.method)).toEqual(['views.open']);
    expect(lastView()).toContain(VIEWS.settings);
    expect(lastView()).toContain(BLOCKS.settingsGroup);

    env.reset();
    const member = await contextOf(MEMBER);
    await settingsOpenClicked({ ...clickOf(env, MEMBER, 'settings'), client: member.client }, member);
    expect(lastView()).not.toContain(BLOCKS.settingsGroup);
    expect(lastView()).toContain('Only a workspace admin or owner');
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'denied', userId: MEMBER });
  });

  it('settingsSubmitted saves what narrows, says so and refreshes Home; a widening group is refused, nothing saved', async () => {
    const admin = await contextOf(ADMIN);
    await settingsSubmitted(settingsForm(admin, '  '), admin);
    expect(env.acks).toEqual([{ response_action: 'update', view: expect.objectContaining({ type: 'modal' }) }]);
    expect(JSON.stringify(env.acks[0])).toContain('Saved.');
    expect(await env.store.installationSettings.get(TEAM)).toMatchObject({ approverGroup: null, updatedBy: ADMIN });
    expect(env.called('refreshHome')).toHaveLength(1);
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'ok', target: TEAM });

    env.reset();
    await settingsSubmitted(settingsForm(admin, 's0anyone'), admin);
    const answer = JSON.stringify(env.acks[0]);
    expect(answer).toContain('Nothing was saved.');
    expect(answer).toContain(BLOCKS.settingsGroup);
    expect(await env.store.installationSettings.get(TEAM)).toMatchObject({ approverGroup: null });
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'denied', userId: ADMIN });
    expect(env.called('refreshHome')).toEqual([]);
  });
});
