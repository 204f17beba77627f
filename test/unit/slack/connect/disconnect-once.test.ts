// Disconnect works once per drawing of App Home (many workspaces, so not in the two-replica integration test
// of acting buttons: that rig serves one workspace). Called as Bolt would call it, twice with the same
// payload and once more with a fresh request context over the same store: one disconnect, one audit
// record, each repeat told it was already done; a newer drawing of Home (after connecting again) works.
import type { WebClient } from '@slack/web-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectRemoveClicked } from '../../../../src/slack/connect/connect-actions.ts';
import type { HandlerContext } from '../../../../src/slack/kit/handler-context.ts';
import type { ActionArgs } from '../../../../src/slack/kit/listen.ts';
import { TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import type { ListenerEnv } from '../listener-env.ts';
import { KEY_A, type TenancyEnv, useTenancyEnvs } from '../tenancy-env.ts';

const OWNER = 'U0OWNER';
const TEAM = 'T0ONCE';

const envs = useTenancyEnvs(TABLE_POLICY);
let env: ListenerEnv;
let t: TenancyEnv;
beforeAll(() => {
  env = envs.listener();
  t = envs.tenancy();
});

/** The owner's request context, users.info saying they own the workspace. */
async function ownerContext(): Promise<HandlerContext> {
  const base = env.context(OWNER, null);
  const info = async ({ user }: { user: string }) => ({
    ok: true,
    user: { id: user, team_id: TEAM, is_owner: user === OWNER, profile: { email: 'owner@example.com' } },
  });
  const client = new Proxy(base.client, {
    get: (target, prop) =>
      prop === 'users' ? { ...(target as unknown as { users: object }).users, info } : Reflect.get(target, prop),
  }) as WebClient;
  const deps = await t.tenants.depsFor(t.installation(TEAM));
  return { ...base, deps, client, installation: t.installation(TEAM) };
}

/** Disconnect clicked in the Home drawing `hash`. */
function disconnectIn(hash: string, ctx: HandlerContext): ActionArgs {
  const args = clickOf(env, OWNER, 'remove', { view: { id: 'V0HOME', hash, type: 'home' } });
  return { ...args, client: ctx.client };
}

const disconnects = async () => (await env.audit(50)).filter((e) => e.action === 'api.disconnect').length;

describe('Disconnect', () => {
  it('works once per drawing of Home: clicked twice and delivered again, one disconnect', async () => {
    await t.connections.connect(TEAM, { apiKey: KEY_A }, OWNER);
    env.reset();
    const first = await ownerContext();
    await connectRemoveClicked(disconnectIn('h1', first), first);
    expect(await t.connections.status(TEAM)).toBeNull();
    expect(await disconnects()).toBe(1);
    expect(JSON.stringify(env.replies)).toContain('disconnected');

    // Connected again meanwhile: the old drawing's Disconnect must not remove the new key.
    await t.connections.connect(TEAM, { apiKey: KEY_A }, OWNER);
    for (const ctx of [first, await ownerContext()]) {
      env.reset();
      await connectRemoveClicked(disconnectIn('h1', ctx), ctx);
      expect(JSON.stringify(env.replies)).toContain('already done, so nothing more happened. (by you');
    }
    expect(await t.connections.status(TEAM)).not.toBeNull();
    expect(await disconnects()).toBe(1);

    // Home drawn again (a new hash): its Disconnect is a click of its own.
    const again = await ownerContext();
    await connectRemoveClicked(disconnectIn('h2', again), again);
    expect(await t.connections.status(TEAM)).toBeNull();
    expect(await disconnects()).toBe(2);
  });
});
