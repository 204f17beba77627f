// When `<runbook>` in a command matches several runbooks (a pick list) or none (closest names).
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { secretFieldNames } from '../../forms/secrets.ts';
import { button, type SlackMessage } from './common.ts';
import { ACTIONS } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, truncate } from './mrkdwn.ts';

/** What to do once a runbook is picked. */
export type PickThen = 'show' | 'run' | 'schedule' | 'schedules' | 'executions' | 'health';

/**
 * The options typed with the command that a pick must keep (`--next 24h`, `--status failed`, `--last month`, a `--now` line),
 * so the pick finishes the command as typed. Unsealed: whoever handles the pick validates each one.
 */
export interface PickKeep {
  window?: string;
  status?: string;
  last?: string;
  /** A `--now` line waiting for its runbook (a draft id): the pick carries on with --now. */
  line?: string;
}
const KEEP_KEYS = ['window', 'status', 'last', 'line'] as const;

export function pickValue(id: string, then: PickThen, keep: PickKeep = {}): string {
  const k = Object.fromEntries(KEEP_KEYS.filter((key) => keep[key]).map((key) => [key, keep[key]]));
  return JSON.stringify(Object.keys(k).length > 0 ? { id, next: then, k } : { id, next: then });
}

export function decodePick(value: string | undefined): { id: string; next: PickThen; keep: PickKeep } | null {
  try {
    const v = JSON.parse(value ?? '') as { id?: unknown; next?: unknown; k?: unknown };
    const thens: PickThen[] = ['show', 'run', 'schedule', 'schedules', 'executions', 'health'];
    if (typeof v.id === 'string' && thens.includes(v.next as PickThen)) {
      const raw = (typeof v.k === 'object' && v.k !== null ? v.k : {}) as Record<string, unknown>;
      const keep: PickKeep = {};
      for (const key of KEEP_KEYS) {
        const option = raw[key];
        if (typeof option === 'string' && option.length <= 40) keep[key] = option;
      }
      return { id: v.id, next: v.next as PickThen, keep };
    }
  } catch {
    // fall through
  }
  return null;
}

function choices(runbooks: Workflow[], then: PickThen, keep: PickKeep): KnownBlock[] {
  return runbooks.slice(0, 10).map((r, i) => ({
    type: 'section',
    block_id: `pick_${i}`,
    text: mrkdwnText(
      `*${escapeMrkdwn(truncate(r.name, 150))}*\n${escapeMrkdwn(truncate(r.description || r.path || r.id, 200))}`,
    ),
    accessory: button('Choose', `${ACTIONS.pickRunbook}_${i}`, pickValue(r.id, then, keep)),
  }));
}

/** Blocks for a non-match resolution (usable in messages and modals). */
export function buildChoiceBlocks(
  query: string,
  resolution: Exclude<Resolution, { kind: 'match' }>,
  then: PickThen,
  keep: PickKeep = {},
) {
  const q = escapeMrkdwn(truncate(query, 100));
  if (resolution.kind === 'several') {
    return [
      {
        type: 'section',
        text: mrkdwnText(`Several runbooks match “${q}”. Which one?`),
      } as KnownBlock,
      ...choices(resolution.candidates, then, keep),
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
    ...choices(resolution.suggestions, then, keep),
  ];
}

export function buildRunbookChoice(
  query: string,
  resolution: Exclude<Resolution, { kind: 'match' }>,
  then: PickThen,
  keep: PickKeep = {},
): SlackMessage {
  const text = resolution.kind === 'several' ? `Several runbooks match “${query}”` : `No runbook matches “${query}”`;
  return { text: escapeMrkdwn(truncate(text, 3000)), blocks: buildChoiceBlocks(query, resolution, then, keep) };
}

/** The runbooks a pick list offers. */
export function offeredRunbooks(resolution: Exclude<Resolution, { kind: 'match' }>): Workflow[] {
  return (resolution.kind === 'several' ? resolution.candidates : resolution.suggestions).slice(0, 10);
}

/** The typed names that are a secret input of any runbook offered: never kept for the pick. */
export function offeredSecrets(
  resolution: Exclude<Resolution, { kind: 'match' }>,
  typed: Readonly<Record<string, string>>,
): string[] {
  const secret = new Set(offeredRunbooks(resolution).flatMap((r) => secretFieldNames(parseInputSchema(r.inputSchema))));
  return Object.keys(typed).filter((name) => secret.has(name));
}
