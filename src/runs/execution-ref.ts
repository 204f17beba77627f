// `/runbook status` and `watch` take an execution id as people copy it from a card: the full id, or a
// unique prefix of at least MIN_PREFIX characters among recent executions (the cards show short ids).
// Candidates the person may not view are left out, so an ambiguous prefix never names a hidden runbook.
import { InvalidIdError } from '../api/errors.ts';
import { isValidId } from '../api/path-segment.ts';
import type { Execution } from '../api/schemas.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { visibilityFor } from './visibility.ts';

export const MIN_PREFIX = 8;
/** How far back "recent" reaches: this many executions, newest first. */
export const RECENT_EXECUTIONS = 200;
/** Candidates listed for an ambiguous prefix. */
export const MAX_CANDIDATES = 10;

export type ExecutionRef =
  | { kind: 'id'; id: string }
  | { kind: 'ambiguous'; prefix: string; candidates: Execution[]; more: number }
  | { kind: 'too-short'; prefix: string }
  /** Not an id at all ('.', '..', control characters…): nothing is asked of the API. */
  | { kind: 'invalid'; error: InvalidIdError }
  | { kind: 'none'; prefix: string };

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `typed` is a whole id (looked up as is) rather than a prefix to search for. */
export function looksLikeFullId(typed: string): boolean {
  return FULL_ID.test(typed.trim());
}

/** Recent executions whose id starts with `prefix` (case-insensitive), newest first. */
export function matchPrefix(prefix: string, recent: readonly Execution[]): Execution[] {
  const p = prefix.trim().toLowerCase();
  const seen = new Set<string>();
  return recent.filter((e) => {
    if (!e.id.toLowerCase().startsWith(p) || seen.has(e.id)) return false;
    seen.add(e.id);
    return true;
  });
}

/** Resolves what the person typed among the recent executions they may view. */
export async function resolveExecutionRef(deps: RunsDeps, actor: Actor, typed: string): Promise<ExecutionRef> {
  const prefix = typed.trim();
  if (looksLikeFullId(prefix)) return { kind: 'id', id: prefix };
  if (!isValidId(prefix)) {
    const error = new InvalidIdError({ kind: 'execution', id: prefix, method: 'GET', path: '/v1alpha1/executions/' });
    return { kind: 'invalid', error };
  }
  if (prefix.length < MIN_PREFIX) return { kind: 'too-short', prefix };
  const recent: Execution[] = [];
  for await (const e of deps.api.executions.iterate(
    { pageSize: 100, orderBy: 'descending' },
    { timeoutMs: deps.interactiveTimeoutMs },
  )) {
    recent.push(e);
    if (recent.length >= RECENT_EXECUTIONS) break;
  }
  const visible = await visibilityFor(deps, actor);
  const matches = matchPrefix(prefix, recent).filter((e) => visible.ref({ name: e.workflowName }));
  if (matches.length === 1) return { kind: 'id', id: matches[0]!.id };
  if (matches.length === 0) return { kind: 'none', prefix };
  return {
    kind: 'ambiguous',
    prefix,
    candidates: matches.slice(0, MAX_CANDIDATES),
    more: Math.max(0, matches.length - MAX_CANDIDATES),
  };
}
