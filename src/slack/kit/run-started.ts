// "Where did my run go?": the private answer where the person acted once a run has started, naming
// where its live card is and linking to it.
import type { SlackMessage } from './common.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, slackLink, truncate } from './mrkdwn.ts';

export interface RunStarted {
  runbookName: string;
  /** Where the card goes; null: a DM to the person. */
  channel: string | null;
  /** The card goes in this thread. */
  inThread: boolean;
  /** Permalink of the posted card; null when it is not up yet (the watcher posts it). */
  cardLink: string | null;
}

/** ":rocket: *X* started. Its card is in #deploys: <link|open it>." */
export function buildRunStarted(s: RunStarted): SlackMessage {
  const name = truncate(s.runbookName, 200);
  const where = s.channel ? `${s.inThread ? 'the thread in ' : ''}${channelMention(s.channel)}` : 'your DMs';
  const card = s.cardLink
    ? `Its live card is in ${where}: ${slackLink(s.cardLink, 'open it')}.`
    : `Its live card will appear in ${where}.`;
  return {
    text: `${escapeMrkdwn(name)} started`,
    blocks: [{ type: 'section', text: mrkdwnText(`:rocket: *${escapeMrkdwn(name)}* started. ${card}`) }],
  };
}
