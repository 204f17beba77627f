// What the many-workspace end-to-end tests do the same way in each installation, through the real Bolt
// pipeline: a person by id and workspace, and a command's answer (forms and the second approver are in
// oauth-harness.ts).
import { expect } from 'vitest';
import type { EmulatorState } from '../../src/emulator/state.ts';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { type OAuthHarness, SCALE, startOAuthHarness, until } from './oauth-harness.ts';

export const GRID = { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true };

/** A person as the tests name them: their id and their workspace. */
export type Person = { id: string; team: string };

/** Everything a surface shows of a message: its text and its blocks. */
export const textOf = (e: { text?: string | null; blocks?: unknown }) =>
  `${e.text ?? ''}${JSON.stringify(e.blocks ?? [])}`;

/** That person in the fake Slack (in the Grid org when their workspace is one of its). */
export const personIn = (h: OAuthHarness, p: Person): SlackUser =>
  h.user(p.id, p.team, p.team.startsWith('T0GRID') ? GRID : undefined);

/** Sends `/runbook <command>` as `who`; the answer (ephemeral) that matches `needle`, or what came instead. */
export async function answer(
  h: OAuthHarness,
  who: Person,
  command: string,
  needle: string | RegExp = /\S/,
  channel = 'C01OPS',
) {
  const since = h.fake.state.ephemerals.length;
  await personIn(h, who).command(command, channel);
  const matches = (text: string) => (typeof needle === 'string' ? text.includes(needle) : needle.test(text));
  return until(
    async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === who.id && matches(textOf(e))),
    `${who.team}: ${command}`,
  ).catch((err: Error) => {
    const got = h.fake.state.ephemerals.slice(since).filter((e) => e.user === who.id);
    throw new Error(`${err.message}; answered: ${got.map(textOf).join(' | ') || 'nothing'}`);
  });
}

/** Two installed workspaces, each with a person: A on the emulator's own tenant, B on a tenant of its own. */
export const WORKSPACE_A = { installation: 'T0SANDBOX', user: 'U01ALICE' };
export const WORKSPACE_B = { installation: 'T0SECOND', user: 'U11SAM' };

/** The runtime with A installed and connected, and B installed and connected to tenant `keyB` (its `runbooks`). */
export async function startTwoTenants(
  keyB: string,
  runbooks: string[],
): Promise<{ h: OAuthHarness; tenantB: EmulatorState }> {
  const h = await startOAuthHarness({ tenants: { [keyB]: { name: 'beta', runbooks } } });
  expect((await h.install(WORKSPACE_A.installation)).status).toBe(200);
  expect((await h.install(WORKSPACE_B.installation, { connect: false })).status).toBe(200);
  const connected = await h.runtime.tenants!.connections.connect(
    WORKSPACE_B.installation,
    { apiKey: keyB },
    WORKSPACE_B.user,
  );
  expect(connected.ok).toBe(true);
  return { h, tenantB: h.emulator.tenant(keyB)! };
}

/** A run of Scale started through the default tenant's API, not from Slack: no card, so a subscription tells it. */
export function runScaleThroughApi(h: OAuthHarness, marker: string): string {
  const scale = [...h.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === SCALE)!;
  const params = JSON.stringify({ namespace: marker, deployment: 'web', replicas: 2 });
  return h.emulator.state.runWorkflow(scale.workflow.id, { proxyId: 'proxy-dev', params }).id;
}

/** The top-level posts Slack accepted in `channel` that name execution `id` (a subscription's notices of it). */
export const postsNaming = (h: OAuthHarness, id: string, channel: string) =>
  h.fake.state.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel && JSON.stringify(c.args).includes(id),
  );
