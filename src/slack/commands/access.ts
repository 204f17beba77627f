// The policy's view of a Slack interaction: who (with the user groups the policy names) and what.
import type { WebClient } from '@slack/web-api';
import type { Workflow } from '../../api/schemas.ts';
import type { Decision, RunbookFacts, Subject } from '../../policy/policy.ts';
import type { SlackDeps } from '../deps.ts';

export function runbookFacts(deps: SlackDeps, runbook: Workflow): RunbookFacts {
  return {
    id: runbook.id,
    name: runbook.name,
    tags: runbook.tags,
    categories: runbook.categories,
    isService: deps.catalog.isService(runbook.id),
    requiresApproval: runbook.requiresApproval,
  };
}

export async function subjectOf(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  channelId: string | null,
): Promise<Subject> {
  return { userId, channelId, groups: await deps.access.identity.groupsOf(client, userId) };
}

/** Whether the person may `view` a runbook, for filtering lists; one subject lookup, then answers from memory. */
export interface Visibility {
  runbook(ref: { id?: string | null; name?: string | null }): boolean;
  /** The decision itself, with the sentence to show on a denial. */
  decide(ref: { id?: string | null; name?: string | null }): Decision;
}

export async function visibilityFor(
  deps: SlackDeps,
  client: WebClient,
  userId: string,
  channelId: string | null,
): Promise<Visibility> {
  const subject = await subjectOf(deps, client, userId, channelId);
  const all = await deps.catalog.all().catch(() => [] as Workflow[]);
  const byId = new Map(all.map((r) => [r.id, r]));
  const byName = new Map(all.map((r) => [r.name.toLowerCase(), r]));
  const decide = (ref: { id?: string | null; name?: string | null }): Decision => {
    const known =
      (ref.id ? byId.get(ref.id) : undefined) ?? (ref.name ? byName.get(ref.name.toLowerCase()) : undefined);
    // A runbook the catalog no longer has is judged by what we know of it: its id and name.
    const facts: RunbookFacts = known
      ? runbookFacts(deps, known)
      : { id: ref.id ?? '', name: ref.name ?? '', tags: [], categories: [], isService: null, requiresApproval: false };
    return deps.access.policy.decide('view', subject, facts);
  };
  return { decide, runbook: (ref) => decide(ref).allowed };
}
