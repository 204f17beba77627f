// The sandbox with several workspaces (SANDBOX_MANY_WORKSPACES): its people in the other workspaces, the
// OAuth app the fake Slack knows the bot as, and the bot's settings for it — many-workspace mode against
// the fake's consent page, with a fixed key (the fake's tokens are worthless anywhere else).
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import type { TenantSeed } from '../emulator/server.ts';
import type { Runtime } from '../runtime.ts';
import type { FakeSlack } from './fake-slack-api.ts';
import { SANDBOX_WORKSPACE_PEOPLE } from './fake-slack-oauth.ts';
import { installThroughSlack } from './install-flow.ts';
import { SANDBOX_APPROVALS_CHANNEL, SANDBOX_APPROVER_GROUPS } from './sandbox-defaults.ts';

export const SANDBOX_CLIENT_ID = '1000000000.2000000000';

/**
 * The built-in emulator's second tenant in this sandbox, chosen by its own key: a smaller catalog of its
 * own (no database or cloud runbooks), so a workspace connected with it plainly sees another tenant.
 */
export const SANDBOX_SECOND_TENANT_KEY = 'second-tenant-key';
export const SANDBOX_EMULATOR_TENANTS: Record<string, TenantSeed> = {
  [SANDBOX_SECOND_TENANT_KEY]: {
    name: 'second',
    runbooks: [
      'Restart Kubernetes Deployment',
      'Drain Kubernetes Node',
      'Scale Kubernetes Deployment',
      'Find Crashlooping Pods',
      'Collect Kubernetes Pod Logs',
      'Rollback Kubernetes Deployment',
      'Check Disk Usage on Hosts',
      'Restart Systemd Service',
      'Deploy Payments API Hotfix',
      'Restart Checkout Workers',
    ],
  },
};

/**
 * The other workspaces' people join the fake Slack and its channels (the default people are the first
 * workspace's), with each workspace's approver group.
 */
export function addWorkspacePeople(fake: FakeSlack): void {
  for (const [id, group] of Object.entries(SANDBOX_APPROVER_GROUPS)) {
    // The first workspace's is the fake's own, whatever its team id is called.
    const teamId = id === 'S0APPROVERS' ? fake.state.teamId : group.teamId;
    fake.state.usergroups[id] ??= { handle: group.handle, users: [...group.users], teamId };
  }
  for (const p of SANDBOX_WORKSPACE_PEOPLE) {
    if (fake.state.users.some((u) => u.id === p.id)) continue;
    fake.state.users.push({
      id: p.id,
      name: p.name,
      real_name: p.realName,
      email: `${p.name}@example.com`,
      tz: 'Europe/London',
      tz_label: 'Greenwich Mean Time',
      tz_offset: 0,
      team_id: p.teamId,
      ...(p.enterpriseId ? { enterprise_id: p.enterpriseId } : {}),
    });
    for (const channel of fake.state.channels) if (!channel.is_private) channel.members?.push(p.id);
  }
}

/** The config of the bot in a many-workspace sandbox: OAuth against the fake Slack, a fixed sandbox key. */
export function manyWorkspaceSandboxConfig(config: Config, fake: FakeSlack): Config {
  return {
    ...config,
    slack: {
      ...config.slack,
      oauth: {
        clientId: SANDBOX_CLIENT_ID,
        clientSecret: randomBytes(16).toString('hex'),
        stateSecret: randomBytes(16).toString('hex'),
        redirectUri: null,
        authorizationUrl: `${fake.origin}/oauth/v2/authorize`,
        // DATA_RETENTION_DAYS holds here too (the sandbox makes up the rest of the OAuth settings).
        dataRetentionDays: config.sandbox?.dataRetentionDays ?? config.slack.oauth?.dataRetentionDays ?? 30,
      },
    },
    // Fixed, so a restart still opens the installations it stored: the fake's tokens protect nothing.
    secrets: { key: createHash('sha256').update('runbook-bot sandbox').digest(), previousKey: null },
  };
}

/** Tells the fake Slack where the bot's redirect is (its port is known once it listens). */
export function registerSandboxApp(fake: FakeSlack, botOrigin: string, clientSecret: string): void {
  fake.oauth.configureApp({
    clientId: SANDBOX_CLIENT_ID,
    clientSecret,
    redirectUrl: `${botOrigin}/slack/oauth_redirect`,
  });
}

/**
 * The first workspace at start, so the sandbox answers as before: added through Slack's consent page,
 * connected to the Runbook API, and — with the sandbox's own policy — its approvals channel and approver
 * group set, as its admin (Bob) would in App Home, unless a run before already did. The other workspaces
 * wait for Add to Slack and Connect.
 */
export async function addFirstWorkspace(
  runtime: Runtime,
  fake: FakeSlack,
  options: { botOrigin: string; apiKey: string; approvalSettings: boolean },
): Promise<void> {
  const teamId = fake.state.teamId;
  const first = await installThroughSlack(options.botOrigin, teamId);
  if (first.status !== 200)
    throw new Error(`the sandbox could not add the bot to its first workspace (${first.status})`);
  // Only what is not there yet: a restart keeps a key replaced, and settings changed, in App Home.
  const connections = runtime.tenants?.connections;
  if (connections && !(await connections.status(teamId))) {
    const connected = await connections.connect(teamId, { apiKey: options.apiKey }, 'U02BOB');
    if (!connected.ok) throw new Error(`the sandbox could not connect its first workspace: ${connected.sentence}`);
  }
  if (options.approvalSettings && !(await runtime.store.installationSettings.get(teamId))) {
    await runtime.store.installationSettings.put({
      installationId: teamId,
      approvalsChannel: SANDBOX_APPROVALS_CHANNEL,
      approverGroup: 'S0APPROVERS',
      updatedBy: 'U02BOB',
      updatedAt: Date.now(),
    });
  }
}

/**
 * The built-in emulator listens on a new port each start, so the connections an earlier run stored point
 * at an address that is gone: each workspace's (and org's) is moved to this run's emulator with its own
 * key, checked as Connect checks it. Connections to an address still allowed are left as they are.
 */
export async function moveConnectionsToThisEmulator(runtime: Runtime, fake: FakeSlack): Promise<void> {
  const connections = runtime.tenants?.connections;
  if (!connections) return;
  for (const id of [...fake.oauth.workspaces.map((w) => w.id), ...fake.oauth.orgs.map((o) => o.id)]) {
    const opened = await connections.open(id);
    if (!opened || connections.baseUrls.includes(opened.status.baseUrl)) continue;
    await connections.connect(id, { apiKey: opened.apiKey }, opened.status.connectedBy);
  }
}
