// Approval settings (App Home, many-workspace mode), called as Bolt would call them: who may open and save
// them (admin, owner, the installer; a member is refused and audited), a group the operator's policy does
// not name refused with the sentence above the form and nothing saved, a named group saved and audited.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settingsOpenClicked, settingsSubmitted } from '../../../../src/slack/connect/settings-actions.ts';
import type { HandlerContext } from '../../../../src/slack/kit/handler-context.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { clickOf } from '../listener-args.ts';
import type { ListenerEnv } from '../listener-env.ts';
import { INSTALLER, installationContextOf, KEY_A, type TenancyEnv, useTenancyEnvs } from '../tenancy-env.ts';

const ADMIN = 'U0ADMIN';
const OWNER = 'U0OWNER';
const MEMBER = 'U01ALICE';
const TEAM = 'T0SETTINGS';
// The operator's policy names two groups: a workspace may narrow its approvers to one of them, no other.
const POLICY = `
approvers: { groups: [S0APPROVERS, S0LEADS] }
`;

const envs = useTenancyEnvs(POLICY);
let env: ListenerEnv;
let t: TenancyEnv;
beforeAll(async () => {
  env = envs.listener();
  t = envs.tenancy();
  await t.connections.connect(TEAM, { apiKey: KEY_A }, INSTALLER);
});
beforeEach(async () => {
  env.reset();
  await env.store.installationSettings.remove(TEAM);
});

const contextOf = (userId: string) => installationContextOf(env, t, TEAM, { admin: ADMIN, owner: OWNER }, userId);

function submission(ctx: HandlerContext, group: string): ViewArgs {
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

const opened = () => env.called('views.open');
const ackedView = () => JSON.stringify((env.acks.at(-1) as { view?: unknown } | undefined)?.view);
const saved = () => env.store.installationSettings.get(TEAM);

describe('approval settings listeners', () => {
  it('settingsOpenClicked opens the form for an admin, an owner and the installer, and refuses a member', async () => {
    for (const user of [ADMIN, OWNER, INSTALLER]) {
      env.reset();
      const ctx = await contextOf(user);
      await settingsOpenClicked({ ...clickOf(env, user, 'settings'), client: ctx.client }, ctx);
      expect(env.acks).toEqual([undefined]);
      expect(opened()).toHaveLength(1);
      expect(opened()[0]!.args.trigger_id).toBe('trigger-1');
      const view = JSON.stringify(opened()[0]!.args.view);
      expect(view).toContain(VIEWS.settings);
      expect(view).toContain(BLOCKS.settingsGroup);
      expect(view).toContain('`S0APPROVERS`');
      expect(view).toContain('`S0LEADS`');
      // The operator names the approvals channel (APPROVALS_CHANNEL): it is shown, not asked for.
      expect(view).not.toContain(BLOCKS.settingsChannel);
      expect(view).toContain('C0APPROVALS');
    }
    env.reset();
    const ctx = await contextOf(MEMBER);
    await settingsOpenClicked({ ...clickOf(env, MEMBER, 'settings'), client: ctx.client }, ctx);
    expect(opened()).toHaveLength(1);
    const view = JSON.stringify(opened()[0]!.args.view);
    expect(view).not.toContain(VIEWS.settings);
    expect(view).not.toContain(BLOCKS.settingsGroup);
    expect(view).toContain('Only a workspace admin or owner');
    expect((await env.audit(1))[0]).toMatchObject({
      action: 'settings.update',
      outcome: 'denied',
      userId: MEMBER,
      target: TEAM,
    });
  });

  it('settingsSubmitted saves a group the policy names, audits it and refreshes App Home', async () => {
    const ctx = await contextOf(ADMIN);
    await settingsSubmitted(submission(ctx, ' s0leads '), ctx);
    expect(env.acks).toHaveLength(1);
    expect(env.acks[0]).toMatchObject({ response_action: 'update' });
    expect(ackedView()).toContain('Saved.');
    expect(ackedView()).toContain('S0LEADS');
    expect(await saved()).toMatchObject({
      installationId: TEAM,
      approvalsChannel: null,
      approverGroup: 'S0LEADS',
      updatedBy: ADMIN,
    });
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'ok', userId: ADMIN });
    expect(env.called('refreshHome')).toHaveLength(1);

    // Empty clears the group.
    env.reset();
    await settingsSubmitted(submission(ctx, '  '), ctx);
    expect(ackedView()).toContain('Saved.');
    expect(await saved()).toMatchObject({ approverGroup: null, updatedBy: ADMIN });
  });

  it('settingsSubmitted refuses a group the policy does not name: the sentence above the form, nothing saved', async () => {
    const ctx = await contextOf(OWNER);
    await settingsSubmitted(submission(ctx, 'S0EVERYONE'), ctx);
    expect(env.acks).toHaveLength(1);
    expect(env.acks[0]).toMatchObject({ response_action: 'update', view: { callback_id: VIEWS.settings } });
    expect(ackedView()).toContain('Nothing was saved.');
    expect(ackedView()).toContain("Approvers can only be narrowed to a user group the operator's policy");
    expect(ackedView()).toContain('S0EVERYONE');
    expect(ackedView()).toContain(BLOCKS.settingsGroup);
    expect(ackedView()).not.toContain('Saved.');
    expect(await saved()).toBeNull();
    expect(env.called('refreshHome')).toEqual([]);
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'denied', userId: OWNER });
  });

  it('settingsSubmitted refuses a member, even with a group the policy names, and saves nothing', async () => {
    const ctx = await contextOf(MEMBER);
    await settingsSubmitted(submission(ctx, 'S0APPROVERS'), ctx);
    expect(env.acks).toHaveLength(1);
    expect(env.acks[0]).toMatchObject({ response_action: 'update' });
    expect(ackedView()).toContain('Only a workspace admin or owner');
    expect(ackedView()).not.toContain(BLOCKS.settingsGroup);
    expect(await saved()).toBeNull();
    expect(env.called('refreshHome')).toEqual([]);
    expect((await env.audit(1))[0]).toMatchObject({ action: 'settings.update', outcome: 'denied', userId: MEMBER });
  });
});
