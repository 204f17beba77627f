// Many-workspace deps for unit tests: an emulator serving tenants A and B (by key), ApiConnections over the
// env's SQLite store checking keys against it, and createTenantDeps wired as the runtime wires it.
import { randomBytes } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { ProxyDirectory } from '../../../src/catalog/proxy-directory.ts';
import { RunbookCatalog } from '../../../src/catalog/runbook-catalog.ts';
import { type Emulator, startEmulator } from '../../../src/emulator/server.ts';
import { createLogger } from '../../../src/logger.ts';
import { policyGroups } from '../../../src/policy/load-policy.ts';
import type { SlackDeps } from '../../../src/slack/kit/deps.ts';
import type { HandlerContext } from '../../../src/slack/kit/handler-context.ts';
import { Identity } from '../../../src/slack/kit/identity.ts';
import { Places } from '../../../src/slack/kit/places.ts';
import { createTenantDeps, type TenantApi, type TenantDeps } from '../../../src/slack/tenant-deps.ts';
import type { Store } from '../../../src/store/store.ts';
import { ApiConnections } from '../../../src/tenants/api-connections.ts';
import { createSecretBox } from '../../../src/tenants/secret-box.ts';
import { type ListenerEnv, startListenerEnv } from './listener-env.ts';

export const KEY_A = 'tenant-a-key-0123456789';
export const KEY_B = 'tenant-b-key-9876543210';
/** Tenant B's catalog: two runbooks only. */
export const B_RUNBOOKS = ['Restart Kubernetes Deployment', 'Postgres Vacuum Analyze'];
export const INSTALLER = 'U0INSTALLER';

export interface TenancyEnv {
  emulator: Emulator;
  connections: ApiConnections;
  tenants: TenantDeps;
  installation(id: string): { id: string; teamId: string; enterpriseId: null; isEnterpriseInstall: false };
  close(): Promise<void>;
}

/** A listener env and a tenancy env over it, started before the file's tests and closed after. */
export function useTenancyEnvs(policyYaml: string): { listener: () => ListenerEnv; tenancy: () => TenancyEnv } {
  let listener: ListenerEnv;
  let tenancy: TenancyEnv;
  beforeAll(async () => {
    listener = await startListenerEnv(policyYaml);
    tenancy = await startTenancyEnv(listener.slackDeps, listener.store);
  });
  afterAll(async () => {
    await tenancy?.close();
    await listener?.close();
  });
  return { listener: () => listener, tenancy: () => tenancy };
}

/** `groupsFromPolicy`: each installation's people cache looks up the policy's groups, as the runtime's does. */
export async function startTenancyEnv(
  base: SlackDeps,
  store: Store,
  options: { groupsFromPolicy?: boolean } = {},
): Promise<TenancyEnv> {
  const emulator = await startEmulator({
    port: 0,
    apiKey: KEY_A,
    tenants: { [KEY_B]: { name: 'beta', runbooks: B_RUNBOOKS } },
  });
  const logger = createLogger({ level: 'silent' });
  const connections = new ApiConnections({
    records: store.apiConnections,
    box: createSecretBox({ key: randomBytes(32) }),
    baseUrls: [emulator.url],
    verify: async (baseUrl, apiKey) => {
      const probe = createRunbookApi({ baseUrl, apiKey, maxRetries: 0 });
      try {
        await probe.workflows.list({ pageSize: 1 });
      } finally {
        await probe.close();
      }
    },
  });
  const tenantApi = (api: RunbookApi): TenantApi => ({
    api,
    catalog: new RunbookCatalog({ api }),
    proxies: new ProxyDirectory({ api, configured: [{ id: 'proxy-dev', name: 'Dev proxy' }], defaultId: 'proxy-dev' }),
    close: () => api.close(),
  });
  const tenants = createTenantDeps({
    base,
    connections,
    connect: (opened) =>
      tenantApi(createRunbookApi({ baseUrl: opened.status.baseUrl, apiKey: opened.apiKey, maxRetries: 0 })),
    unconnected: tenantApi,
    newIdentity: (policy) => new Identity({ groups: options.groupsFromPolicy ? policyGroups(policy) : [], logger }),
    newPlaces: () => new Places({ logger }),
    installerOf: async (id) => (id.startsWith('T') ? INSTALLER : null),
    closeGraceMs: 0,
  });
  return {
    emulator,
    connections,
    tenants,
    installation: (id) => ({ id, teamId: id, enterpriseId: null, isEnterpriseInstall: false }),
    async close() {
      await tenants.close();
      await emulator.close();
    },
  };
}

/** Who is a workspace admin or owner (users.info's is_admin / is_owner); everyone else is a member. */
export interface Roles {
  admin: string;
  owner: string;
}

/** The env's recording client, with users.info saying who is an admin or owner (people of `team`). */
function withRoles(env: ListenerEnv, client: WebClient, roles: Roles, team: string): WebClient {
  const info = async ({ user }: { user: string }) => {
    env.calls.push({ method: 'users.info', args: { user } });
    return {
      ok: true,
      user: {
        id: user,
        team_id: team,
        is_admin: user === roles.admin,
        is_owner: user === roles.owner,
        profile: { email: `${user.toLowerCase()}@example.com` },
      },
    };
  };
  return new Proxy(client, {
    get: (target, prop) =>
      prop === 'users'
        ? new Proxy((target as unknown as { users: object }).users, {
            get: (u, p) => (p === 'info' ? info : Reflect.get(u, p)),
          })
        : Reflect.get(target, prop),
  });
}

/** A request context of `userId` in installation `team` (its many-workspace deps), Slack knowing `roles`. */
export async function installationContextOf(
  env: ListenerEnv,
  t: TenancyEnv,
  team: string,
  roles: Roles,
  userId: string,
): Promise<HandlerContext> {
  const base = env.context(userId, null);
  const deps = await t.tenants.depsFor(t.installation(team));
  return { ...base, deps, client: withRoles(env, base.client, roles, team), installation: t.installation(team) };
}
