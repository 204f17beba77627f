// The request context carries the installation Bolt authorized the request for (many-workspace mode):
// the workspace, or the Grid org for an org-wide install; depsFor is asked for that installation.
import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { installRequestContext } from '../../../src/slack/context.ts';
import type { SlackDeps } from '../../../src/slack/kit/deps.ts';
import { contextOf } from '../../../src/slack/kit/handler-context.ts';
import type { TenantInstallation } from '../../../src/tenants/installation.ts';

type Middleware = (args: Record<string, unknown>) => Promise<void>;

async function contextFor(manyWorkspaces: boolean, boltContext: Record<string, unknown>) {
  let middleware: Middleware | undefined;
  const app = { use: (fn: Middleware) => (middleware = fn) } as unknown as App;
  const asked: Array<TenantInstallation | undefined> = [];
  const deps = { logger: {} } as unknown as SlackDeps;
  installRequestContext(app, {
    manyWorkspaces,
    depsFor: async (installation) => {
      asked.push(installation);
      return deps;
    },
    publishHome: async () => {},
  });
  const context: Record<string, unknown> = { ...boltContext };
  let nextCalled = false;
  await middleware!({
    body: { command: '/runbook', user_id: 'U1', team_id: 'T2', channel_id: 'C1', text: '' },
    client: {},
    context,
    respond: async () => {},
    next: async () => {
      nextCalled = true;
    },
  });
  expect(nextCalled).toBe(true);
  return { ctx: contextOf({ context }), asked, deps };
}

describe('the installation in the request context', () => {
  it('is the workspace for a workspace install', async () => {
    const { ctx, asked, deps } = await contextFor(true, { teamId: 'T2', isEnterpriseInstall: false });
    const expected = { id: 'T2', teamId: 'T2', enterpriseId: null, isEnterpriseInstall: false };
    expect(ctx.installation).toEqual(expected);
    expect(asked).toEqual([expected]);
    expect(ctx.deps).toBe(deps);
  });

  it('is the Grid org for an org-wide install, whichever workspace the request came from', async () => {
    const { ctx } = await contextFor(true, { teamId: 'T7', enterpriseId: 'E1', isEnterpriseInstall: true });
    expect(ctx.installation).toEqual({ id: 'E1', teamId: 'T7', enterpriseId: 'E1', isEnterpriseInstall: true });
  });

  it('is a workspace of a Grid org when installed there alone', async () => {
    const { ctx } = await contextFor(true, { teamId: 'T7', enterpriseId: 'E1', isEnterpriseInstall: false });
    expect(ctx.installation?.id).toBe('T7');
  });

  it('is absent in single-workspace and sandbox modes', async () => {
    const { ctx, asked } = await contextFor(false, { teamId: 'T2', isEnterpriseInstall: false });
    expect(ctx.installation).toBeUndefined();
    expect(asked).toEqual([undefined]);
  });
});
