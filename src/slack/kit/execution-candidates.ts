// What `/runbook status <prefix>` and `watch <prefix>` answer when the prefix is not one execution:
// the candidates among recent executions (each with its full id and Details), or why nothing matched.
import type { KnownBlock } from '@slack/types';
import type { Execution } from '../../api/schemas.ts';
import { button, noticeMessage, type SlackMessage, when } from './common.ts';
import { STATUS_EMOJI, STATUS_WORD } from './execution-card.ts';
import { ACTIONS } from './ids.ts';
import { escapeMrkdwn, inlineCode, mrkdwnText, truncate } from './mrkdwn.ts';

export type PrefixCommand = 'status' | 'watch';

export function buildAmbiguousPrefix(
  prefix: string,
  candidates: readonly Execution[],
  more: number,
  command: PrefixCommand,
): SlackMessage {
  const count = candidates.length + more;
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwnText(
        `:mag: ${inlineCode(prefix, 60)} matches ${count} recent executions. Pick one, or type more of its id: ${inlineCode(`/runbook ${command} <id>`)}.`,
      ),
    },
  ];
  for (const e of candidates) {
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        `${STATUS_EMOJI[e.executionStatus]} *${escapeMrkdwn(truncate(e.workflowName || 'Unnamed runbook', 120))}* ${STATUS_WORD[e.executionStatus]} · ${when(e.startTime ?? e.createTime, '—')}\n${inlineCode(e.id, 120)}`,
      ),
      accessory: button('Details', ACTIONS.executionStatus, e.id),
    });
  }
  if (more > 0) blocks.push({ type: 'context', elements: [mrkdwnText(`…and ${more} more. Type more of the id.`)] });
  return { text: `${escapeMrkdwn(truncate(prefix, 120))} matches ${count} recent executions`, blocks };
}

export function buildPrefixTooShort(prefix: string, minimum: number): SlackMessage {
  return noticeMessage(
    `:mag: ${inlineCode(prefix, 60)} is too short to find an execution: give the whole id or at least its first ${minimum} characters.`,
    `Give at least ${minimum} characters of the execution id.`,
  );
}

export function buildNoPrefixMatch(prefix: string): SlackMessage {
  return noticeMessage(
    `:mag: No recent execution has an id starting with ${inlineCode(prefix, 60)}. Check the id in \`/runbook executions\`.`,
    `No recent execution starts with ${truncate(prefix, 60)}.`,
  );
}
