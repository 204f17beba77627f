// `view` on every surface that names a runbook: lists, typeahead, pick lists, "did you mean",
// executions, schedules, App Home. A runbook the person may not view does not exist for them: it is
// never matched, suggested or listed, so nothing reveals its name.
import type { Workflow } from '../api/schemas.ts';
import type { Resolution } from '../catalog/runbook-catalog.ts';
import type { Decision } from '../policy/policy.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { sameRunbookName } from './execution-facts.ts';
import { bareFacts, decideFor, recordDenial, runbookFacts } from './gate.ts';
import type { RunEntry } from './run-entry.ts';

/**
 * A look refused by `view` (show, status, output, executions, health): each audited under its own action,
 * named here, so every path that refuses the same look writes the same record.
 */
export const LOOK_AUDIT_ACTIONS = {
  show: 'runbook.show',
  status: 'execution.status',
  output: 'execution.output',
  executions: 'executions.list',
  health: 'runbook.health',
} as const;
export type Look = keyof typeof LOOK_AUDIT_ACTIONS;

/** How a refusal met while resolving a name is audited: a look, or another action (a run names its entry point). */
export type RefusedAs = Look | { action: string; via?: RunEntry };

export interface Visibility {
  /** May the actor view this runbook (the API's copy)? */
  runbook(runbook: Workflow): boolean;
  /** The same, with the sentence to show on a denial. */
  judge(runbook: Workflow): Decision;
  /** By id and/or name, for things that only name a runbook (executions, schedules). */
  ref(ref: { id?: string | null; name?: string | null }): boolean;
  /** The decision itself, with the sentence to show on a denial (never naming the runbook). */
  decide(ref: { id?: string | null; name?: string | null }): Decision;
  /**
   * `view` as a refusal (show, status, output, executions, health): the decision, and on a denial the same
   * audit record as every refusal (the look's action, the target named by id so the trail says which).
   */
  check(ref: { id?: string | null; name?: string | null }, look: Look): Promise<Decision>;
  /**
   * `<runbook>` typed by the person, among the runbooks they may view. With `refusedAs`, a name that only
   * a hidden runbook matches reads as unknown to the person and is audited as a `view` refusal.
   */
  resolve(text: string, refusedAs?: RefusedAs): Promise<Resolution>;
  /** Typeahead among the runbooks they may view. */
  search(text: string, limit?: number): Promise<Workflow[]>;
}

const CATALOG_UNREADABLE =
  'I could not read the runbook catalog, so I cannot tell whether you may see that runbook. Try again in a minute.';

function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

/** The actor's view of the catalog, judged where they act. One catalog read, then answers from memory. */
export async function visibilityFor(deps: RunsDeps, actor: Actor): Promise<Visibility> {
  const all = await deps.catalog.all().catch(() => null);
  const byId = new Map((all ?? []).map((r) => [r.id, r]));
  // Names as executions and schedules carry them: case and edge spaces aside (sameRunbookName), and not
  // unique, so a name stands for every runbook that has it.
  const byName = new Map<string, Workflow[]>();
  for (const r of all ?? []) {
    const key = nameKey(r.name);
    byName.set(key, [...(byName.get(key) ?? []), r]);
  }
  const judge = (r: Workflow) => decideFor(deps, actor, 'view', runbookFacts(deps, r), actor.channelId);
  const decide = (ref: { id?: string | null; name?: string | null }): Decision => {
    const known = ref.id ? byId.get(ref.id) : undefined;
    if (known) return judge(known);
    const named = ref.name ? (byName.get(nameKey(ref.name)) ?? []) : [];
    // Only a name: viewable only if every runbook of that name is (one hidden namesake keeps it hidden).
    if (named.length > 0) return named.map(judge).find((d) => !d.allowed) ?? judge(named[0]!);
    // Unreadable catalog: a rule by tag, category, kind or id cannot be applied to a bare name: not shown.
    if (all === null && deps.access.policy.hidesByRunbookFacts) {
      return { allowed: false, rule: null, message: CATALOG_UNREADABLE };
    }
    // A runbook the catalog no longer has is judged by what we know of it: its id and name.
    return decideFor(deps, actor, 'view', bareFacts(ref.id ?? '', ref.name ?? ''), actor.channelId);
  };
  const runbook = (r: Workflow) => judge(r).allowed;
  const refuse = (as: RefusedAs, id: string | null, name: string | null, sentence: string) => {
    const { action, via } = typeof as === 'string' ? { action: LOOK_AUDIT_ACTIONS[as], via: undefined } : as;
    return recordDenial(deps, actor, {
      action,
      target: name && id ? `${name} (${id})` : (id ?? name ?? '?'),
      sentence,
      ...(via ? { via } : {}),
    });
  };
  return {
    runbook,
    judge,
    decide,
    ref: (ref) => decide(ref).allowed,
    async check(ref, look) {
      const decision = decide(ref);
      if (!decision.allowed) await refuse(look, ref.id ?? null, ref.name ?? null, decision.message);
      return decision;
    },
    async resolve(text, refusedAs) {
      const resolution = await deps.catalog.resolve(text, runbook);
      if (!refusedAs || resolution.kind === 'match') return resolution;
      const any = await deps.catalog.resolve(text).catch(() => null);
      if (any?.kind === 'match') {
        const decision = judge(any.runbook);
        if (!decision.allowed) await refuse(refusedAs, any.runbook.id, any.runbook.name, decision.message);
      }
      return resolution;
    },
    search: (text, limit = 100) => deps.catalog.search(text, limit, runbook),
  };
}

/** The catalog's runbook with exactly this name, or null (unknown, renamed, or the catalog is down). */
export async function runbookNamed(deps: RunsDeps, name: string): Promise<Workflow | null> {
  if (!name) return null;
  try {
    const r = await deps.catalog.resolve(name);
    if (r.kind === 'match') return sameRunbookName(r.runbook.name, name) ? r.runbook : null;
    if (r.kind === 'several') return r.candidates.find((c) => sameRunbookName(c.name, name)) ?? null;
  } catch (err) {
    deps.logger.warn({ err }, 'could not look up the runbook of an execution');
  }
  return null;
}
