// The short "your run finished" notices: the thread reply that pings whoever started the run, and
// the same news as one line of a digest. Pure; names from the API are escaped.
import type { Execution } from '../api/schemas.ts';
import { STATUS_WORD } from '../slack/kit/execution-card.ts';
import { escapeMrkdwn, truncate, userMention } from '../slack/kit/mrkdwn.ts';
import type { Watch } from '../store/store.ts';

function outcomeWord(execution: Execution | null, stale: boolean): string {
  if (stale || !execution) return 'stopped reporting';
  return STATUS_WORD[execution.executionStatus];
}

/** `<@U…> your run of *X* succeeded (`id`)`; the id lets people and tests tell runs apart. */
export function replyText(watch: Watch, execution: Execution | null, stale: boolean): string {
  const name = `*${escapeMrkdwn(truncate(watch.runbookName, 200))}*`;
  const who = watch.startedBy ? `${userMention(watch.startedBy)} your run of ${name}` : name;
  return `${who} ${outcomeWord(execution, stale)} (\`${escapeMrkdwn(watch.executionId)}\`)`;
}

/** One digest line, linking to the run's message when it has one. */
export function digestLine(watch: Watch, execution: Execution | null, stale: boolean): string {
  return `• ${replyText(watch, execution, stale)}`;
}
