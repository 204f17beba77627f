// Subscribing or unsubscribing a channel is said in the channel (who, and what), so the channel knows
// why the bot starts or stops posting results there. Pure.
import type { SlackMessage } from '../kit/common.ts';
import { mrkdwnText, truncate } from '../kit/mrkdwn.ts';
import { personText } from '../kit/people.ts';
import { subscriptionTarget } from './subscription-list.ts';

export interface SubscriptionChange {
  change: 'subscribed' | 'updated' | 'unsubscribed';
  /** Slack user id of who did it. */
  by: string;
  runbookId: string;
  runbookName: string;
  failuresOnly: boolean;
}

export function buildSubscriptionAnnouncement(c: SubscriptionChange): SlackMessage {
  const who = personText({ userId: c.by });
  const what = subscriptionTarget(c);
  const filter = c.failuresOnly ? 'failures' : 'results';
  const plainWhat = c.runbookId === '*' ? 'all runbooks' : truncate(c.runbookName || c.runbookId, 150);
  const line =
    c.change === 'unsubscribed'
      ? `:no_bell: ${who} unsubscribed this channel from ${what}: results of it are no longer posted here.`
      : `:bell: ${who} ${c.change === 'updated' ? 'changed this channel’s subscription to' : 'subscribed this channel to'} ${what}: ${filter} of its runs will be posted here${c.runbookId === '*' ? ' (runbooks they may see)' : ''}. \`/runbook subscriptions\` lists them; \`/runbook unsubscribe\` stops them.`;
  const fallback =
    c.change === 'unsubscribed'
      ? `This channel was unsubscribed from ${plainWhat}.`
      : `This channel was subscribed to ${filter} of ${plainWhat}.`;
  return { text: fallback, blocks: [{ type: 'section', text: mrkdwnText(line) }] };
}
