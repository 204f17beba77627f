// Which channel subscriptions want a finished execution, and what they are sent. Pure.
// Executions carry only the runbook's name (workflowName), so a subscription matches by name: the
// catalog's current name of its runbook id when known (a renamed runbook keeps its subscribers),
// else the name stored when subscribing.
import type { Execution, Workflow } from '../api/schemas.ts';
import type { CardInputs } from '../forms/labelled-inputs.ts';
import { ALL_RUNBOOKS, sameRunbookName } from '../runs/execution-facts.ts';
import { buildResultCard, STATUS_WORD } from '../slack/kit/execution-card.ts';
import { escapeMrkdwn, truncate } from '../slack/kit/mrkdwn.ts';
import type { PeopleByEmail } from '../slack/kit/people.ts';
import type { OutgoingMessage } from './slack-pacer.ts';

export { ALL_RUNBOOKS, sameRunbookName };

/** The fields of a stored subscription that matching needs. */
export interface SubscriptionRule {
  channel: string;
  /** '*' = every runbook. */
  runbookId: string;
  runbookName: string;
  failuresOnly: boolean;
}

/**
 * Dedupe key of "this channel was told about this execution" (one message per pair, ever), per installation:
 * two tenants' APIs may hand out the same execution id, and a Slack Connect channel may be subscribed in both
 * ('' = the single workspace, whose key is as it always was).
 */
export function subscriptionNoticeKey(channel: string, executionId: string, installationId = ''): string {
  return installationId ? `sub:${installationId}:${channel}:${executionId}` : `sub:${channel}:${executionId}`;
}

function completedAt(e: Execution): number {
  for (const t of [e.endTime, e.startTime, e.createTime]) {
    const ms = t ? Date.parse(t) : Number.NaN;
    if (Number.isFinite(ms)) return ms;
  }
  return Number.POSITIVE_INFINITY;
}

/** Earlier-finished first (then by id, so the order is stable): the order notices are posted in. */
export function byCompletion(a: Execution, b: Execution): number {
  return completedAt(a) - completedAt(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Whether one subscription wants this (finished) execution. `currentName` = the runbook's name now, if known. */
export function wantsExecution(rule: SubscriptionRule, execution: Execution, currentName?: string | null): boolean {
  if (rule.failuresOnly && execution.executionStatus !== 'EXECUTION_STATUS_FAILED') return false;
  if (rule.runbookId === ALL_RUNBOOKS) return true;
  const name = currentName || rule.runbookName;
  return name !== '' && sameRunbookName(name, execution.workflowName);
}

/** The channels to tell, one per channel even when several of its subscriptions match. */
export function channelsFor(
  rules: readonly SubscriptionRule[],
  execution: Execution,
  nameOf: (runbookId: string) => string | null = () => null,
): string[] {
  const channels = new Set<string>();
  for (const rule of rules) {
    if (channels.has(rule.channel)) continue;
    if (wantsExecution(rule, execution, rule.runbookId === ALL_RUNBOOKS ? null : nameOf(rule.runbookId))) {
      channels.add(rule.channel);
    }
  }
  return [...channels];
}

/**
 * The message a subscribed channel gets: the same result card as a run started from Slack, with the
 * executor (an email or API key name) as "started by" since nobody in Slack started it: a mention
 * when `people` (emails Slack knows, looked up by the caller) has their email.
 */
export function buildSubscriptionNotice(
  execution: Execution,
  runbook: Pick<Workflow, 'id' | 'name'> | null,
  maskedInputs: CardInputs,
  people?: PeopleByEmail,
): OutgoingMessage {
  return buildResultCard(
    {
      runbookId: runbook?.id ?? '',
      runbookName: execution.workflowName || runbook?.name || 'A runbook',
      proxyId: '',
      startedBy: null,
      inputs: maskedInputs,
    },
    execution,
    people ? { people } : {},
  );
}

/** The same news as one digest line; carries the execution id like every notice. */
export function subscriptionDigestLine(execution: Execution): string {
  const name = escapeMrkdwn(truncate(execution.workflowName || 'A runbook', 200));
  const by = execution.executor ? ` (started by ${escapeMrkdwn(truncate(execution.executor, 100))})` : '';
  return `• *${name}* ${STATUS_WORD[execution.executionStatus]}${by} \`${escapeMrkdwn(execution.id)}\``;
}
