// Connecting an installation to its own Runbook API (many-workspace mode): who may connect, replace or
// remove it (a workspace admin or owner, or whoever installed the app), decided here like every rule,
// and each attempt audited (`api.connect`, `api.disconnect`) without the key.
import type { ApiConnections, ConnectInput, ConnectionStatus } from '../tenants/api-connections.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { recordDenial } from './gate.ts';
import { type Refusal, refused } from './run.ts';

/** What Slack says about the person and the installation, read by the entry point. */
export interface ConnectFacts {
  installationId: string;
  /** users.info: is_owner / is_admin. */
  role: 'owner' | 'admin' | 'member';
  /** Who installed the app (null when unknown). */
  installerId: string | null;
}

/** Whether the person may connect, replace or remove the installation's Runbook API. */
export function mayConnect(userId: string, facts: ConnectFacts): boolean {
  return facts.role !== 'member' || (facts.installerId !== null && facts.installerId === userId);
}

async function refuseConnect(deps: Pick<RunsDeps, 'access'>, actor: Actor, facts: ConnectFacts, action: string) {
  const sentence =
    'Only a workspace admin or owner, or whoever installed the app, can change which Runbook API this workspace uses.';
  await recordDenial(deps, actor, { action, target: facts.installationId, sentence });
  return refused('denied', sentence);
}

/** Opening the Connect form: allowed or the refusal (audited). */
export async function openConnect(
  deps: Pick<RunsDeps, 'access'>,
  actor: Actor,
  facts: ConnectFacts,
): Promise<{ kind: 'ok' } | Refusal> {
  return mayConnect(actor.userId, facts) ? { kind: 'ok' } : refuseConnect(deps, actor, facts, 'api.connect');
}

export async function connectRunbookApi(
  deps: Pick<RunsDeps, 'access'>,
  connections: ApiConnections,
  actor: Actor,
  facts: ConnectFacts,
  input: ConnectInput,
): Promise<
  | { kind: 'connected'; status: ConnectionStatus }
  | { kind: 'invalid'; field: 'apiKey' | 'baseUrl'; sentence: string }
  | Refusal
> {
  if (!mayConnect(actor.userId, facts)) return refuseConnect(deps, actor, facts, 'api.connect');
  const outcome = await connections.connect(facts.installationId, input, actor.userId);
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: null,
    action: 'api.connect',
    target: facts.installationId,
    outcome: outcome.ok ? 'ok' : 'error',
    // The URL and, on failure, why; never the key.
    detail: outcome.ok ? outcome.status.baseUrl : outcome.sentence,
    tid: null,
  });
  return outcome.ok
    ? { kind: 'connected', status: outcome.status }
    : { kind: 'invalid', field: outcome.field, sentence: outcome.sentence };
}

export async function disconnectRunbookApi(
  deps: Pick<RunsDeps, 'access'>,
  connections: ApiConnections,
  actor: Actor,
  facts: ConnectFacts,
): Promise<{ kind: 'disconnected' | 'not-connected' } | Refusal> {
  if (!mayConnect(actor.userId, facts)) return refuseConnect(deps, actor, facts, 'api.disconnect');
  const removed = await connections.remove(facts.installationId);
  await deps.access.audit.record({
    userId: actor.userId,
    teamId: actor.teamId,
    channel: null,
    action: 'api.disconnect',
    target: facts.installationId,
    outcome: 'ok',
    detail: removed ? null : 'was not connected',
    tid: null,
  });
  return { kind: removed ? 'disconnected' : 'not-connected' };
}
