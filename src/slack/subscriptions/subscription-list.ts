// `/runbook subscriptions`: the channel's subscriptions (runbook, failures-only flag, who and when)
// with an Unsubscribe button each, and the pick list `subscribe <name>` shows when the name matches
// several runbooks or none. Pure.
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import type { Subscription } from '../../store/store.ts';
import { button, confirmDialog, type SlackMessage } from '../kit/common.ts';
import { ACTIONS } from '../kit/ids.ts';
import { escapeMrkdwn, mrkdwnText, slackDate, truncate, userMention } from '../kit/mrkdwn.ts';

/** One section per subscription; header, footer and "more" note keep a message under 50 blocks. */
export const MAX_LISTED_SUBSCRIPTIONS = 45;

/** What the subscription pick buttons carry. */
export interface SubscriptionPick {
  id: string;
  /** failures only */
  f: boolean;
}

export function encodeSubscriptionPick(pick: SubscriptionPick): string {
  return JSON.stringify(pick);
}

export function decodeSubscriptionPick(value: string | undefined): SubscriptionPick | null {
  try {
    const v = JSON.parse(value ?? '') as Partial<SubscriptionPick>;
    if (typeof v.id === 'string' && v.id !== '') return { id: v.id, f: v.f === true };
  } catch {
    // fall through
  }
  return null;
}

/** "All runbooks" for '*', else the runbook's name. Escaped mrkdwn. */
export function subscriptionTarget(s: Pick<Subscription, 'runbookId' | 'runbookName'>): string {
  if (s.runbookId === '*') return '*all runbooks*';
  return `*${escapeMrkdwn(truncate(s.runbookName || s.runbookId, 150))}*`;
}

function entry(s: Subscription): KnownBlock {
  const filter = s.failuresOnly ? ':x: failures only' : 'every result';
  const since = slackDate(
    Math.floor(s.createdAt / 1000),
    new Date(s.createdAt).toISOString().slice(0, 10),
    '{date_short}',
  );
  return {
    type: 'section',
    text: mrkdwnText(`${subscriptionTarget(s)}\n${filter} · subscribed by ${userMention(s.createdBy)} on ${since}`),
    accessory: button('Unsubscribe', ACTIONS.subscriptionRemove, s.runbookId, {
      confirm: confirmDialog(
        'Unsubscribe?',
        `This channel will no longer get results of ${s.runbookId === '*' ? 'all runbooks' : s.runbookName}.`,
        'Unsubscribe',
      ),
    }),
  };
}

/** The channel's subscriptions, all-runbooks first, then by name. `notice` (escaped mrkdwn) goes on top. */
export function buildSubscriptionList(
  subscriptions: readonly Subscription[],
  notice: string | null = null,
): SlackMessage {
  const sorted = [...subscriptions].sort((a, b) => {
    if (a.runbookId === '*' || b.runbookId === '*') return a.runbookId === '*' ? -1 : 1;
    return a.runbookName.localeCompare(b.runbookName);
  });
  const blocks: KnownBlock[] = [];
  if (notice) blocks.push({ type: 'section', text: mrkdwnText(notice) });
  if (sorted.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwnText(
        'This channel has no subscriptions. `/runbook subscribe <runbook>` posts the result of every run of a runbook here; `/runbook subscribe all --failures` posts every failed run.',
      ),
    });
    return { text: 'This channel has no subscriptions.', blocks };
  }
  const count = sorted.length === 1 ? '1 subscription' : `${sorted.length} subscriptions`;
  blocks.push({ type: 'section', text: mrkdwnText(`:bell: This channel has ${count}:`) });
  for (const s of sorted.slice(0, MAX_LISTED_SUBSCRIPTIONS)) blocks.push(entry(s));
  if (sorted.length > MAX_LISTED_SUBSCRIPTIONS) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `…and ${sorted.length - MAX_LISTED_SUBSCRIPTIONS} more not shown.` }],
    });
  }
  return { text: `This channel has ${count}.`, blocks };
}

function choices(runbooks: Workflow[], failuresOnly: boolean): KnownBlock[] {
  return runbooks.slice(0, 10).map((r, i) => ({
    type: 'section',
    block_id: `subscribe_pick_${i}`,
    text: mrkdwnText(
      `*${escapeMrkdwn(truncate(r.name, 150))}*\n${escapeMrkdwn(truncate(r.description || r.path || r.id, 200))}`,
    ),
    accessory: button(
      'Subscribe',
      `${ACTIONS.subscriptionPick}_${i}`,
      encodeSubscriptionPick({ id: r.id, f: failuresOnly }),
    ),
  }));
}

/** `subscribe <name>` matched several runbooks (pick one) or none (closest names, or a hint). */
export function buildSubscribeChoice(
  query: string,
  resolution: Exclude<Resolution, { kind: 'match' }>,
  failuresOnly: boolean,
): SlackMessage {
  const q = escapeMrkdwn(truncate(query, 100));
  if (resolution.kind === 'several') {
    return {
      text: `Several runbooks match “${q}”`,
      blocks: [
        { type: 'section', text: mrkdwnText(`Several runbooks match “${q}”. Which one should this channel follow?`) },
        ...choices(resolution.candidates, failuresOnly),
      ],
    };
  }
  const text = truncate(`No runbook matches “${query}”`, 3000);
  if (resolution.suggestions.length === 0) {
    return {
      text,
      blocks: [
        {
          type: 'section',
          text: mrkdwnText(`:mag: No runbook matches “${q}”. Try \`/runbook list ${q}\` to search the catalog.`),
        },
      ],
    };
  }
  return {
    text,
    blocks: [
      { type: 'section', text: mrkdwnText(`:mag: No runbook matches “${q}”. Did you mean one of these?`) },
      ...choices(resolution.suggestions, failuresOnly),
    ],
  };
}
