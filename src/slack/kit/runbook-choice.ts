// When `<runbook>` in a command matches several runbooks (a pick list) or none (closest names).
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import { button, type SlackMessage } from './common.ts';
import { ACTIONS } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, truncate } from './mrkdwn.ts';

/** What to do once a runbook is picked. */
export type PickThen = 'show' | 'run' | 'schedule' | 'schedules' | 'executions' | 'health';

export function pickValue(id: string, then: PickThen): string {
  return JSON.stringify({ id, next: then });
}

export function decodePick(value: string | undefined): { id: string; next: PickThen } | null {
  try {
    const v = JSON.parse(value ?? '') as { id?: unknown; next?: unknown };
    const thens: PickThen[] = ['show', 'run', 'schedule', 'schedules', 'executions', 'health'];
    if (typeof v.id === 'string' && thens.includes(v.next as PickThen)) return { id: v.id, next: v.next as PickThen };
  } catch {
    // fall through
  }
  return null;
}

function choices(runbooks: Workflow[], then: PickThen): KnownBlock[] {
  return runbooks.slice(0, 10).map((r, i) => ({
    type: 'section',
    block_id: `pick_${i}`,
    text: mrkdwnText(
      `*${escapeMrkdwn(truncate(r.name, 150))}*\n${escapeMrkdwn(truncate(r.description || r.path || r.id, 200))}`,
    ),
    accessory: button('Choose', `${ACTIONS.pickRunbook}_${i}`, pickValue(r.id, then)),
  }));
}

/** Blocks for a non-match resolution (usable in messages and modals). */
export function buildChoiceBlocks(query: string, resolution: Exclude<Resolution, { kind: 'match' }>, then: PickThen) {
  const q = escapeMrkdwn(truncate(query, 100));
  if (resolution.kind === 'several') {
    return [
      {
        type: 'section',
        text: mrkdwnText(`Several runbooks match “${q}”. Which one?`),
      } as KnownBlock,
      ...choices(resolution.candidates, then),
    ];
  }
  if (resolution.suggestions.length === 0) {
    return [
      {
        type: 'section',
        text: mrkdwnText(`:mag: No runbook matches “${q}”. Try \`/runbook list ${q}\` to search the catalog.`),
      } as KnownBlock,
    ];
  }
  return [
    {
      type: 'section',
      text: mrkdwnText(`:mag: No runbook matches “${q}”. Did you mean one of these?`),
    } as KnownBlock,
    ...choices(resolution.suggestions, then),
  ];
}

export function buildRunbookChoice(
  query: string,
  resolution: Exclude<Resolution, { kind: 'match' }>,
  then: PickThen,
): SlackMessage {
  const text = resolution.kind === 'several' ? `Several runbooks match “${query}”` : `No runbook matches “${query}”`;
  return { text: escapeMrkdwn(truncate(text, 3000)), blocks: buildChoiceBlocks(query, resolution, then) };
}
