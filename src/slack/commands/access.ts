// The policy's view of a Slack interaction: who (with the user groups the policy names) and what.
import type { WebClient } from '@slack/web-api';
import type { Workflow } from '../../api/schemas.ts';
import type { RunbookFacts, Subject } from '../../policy/policy.ts';
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
