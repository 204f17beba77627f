// `/runbook audit`: reading the trail is a policy action like any other (`audit`), decided here where the
// person acts, and a refusal is audited like every other (`audit.read`).
import type { AuditEntry } from '../store/store.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { recordDenial, subjectOf } from './gate.ts';
import { type Refusal, refused } from './run.ts';

export async function readAuditTrail(
  deps: RunsDeps,
  actor: Actor,
  count: number,
): Promise<{ kind: 'ok'; entries: AuditEntry[] } | Refusal> {
  const decision = deps.access.policy.decide('audit', subjectOf(actor, actor.channelId), null);
  if (!decision.allowed) {
    await recordDenial(deps, actor, { action: 'audit.read', target: 'the audit trail', sentence: decision.message });
    return refused('denied', decision.message);
  }
  return { kind: 'ok', entries: await deps.access.audit.recent(count) };
}
