// Where a result may go: a destination is checked like a permission. Wherever a person chooses where a
// result, a card, an approval request or a file is sent (the run form's channel picker, an alias's or
// the channel defaults' `--to`, the Workflow Builder step's channel), the conversation must exist, the
// bot must be able to post there, and the person who chose it must be a member of it; a DM only with
// that person. A saved destination (channel defaults, an alias) is judged again on every use, against
// the person who saved it, and it is shared by everyone in the channel, so it may never be a DM.
// Pure: the Slack layer reads the facts (src/slack/places.ts) and the gate applies this rule.
import { mention } from '../mentions.ts';

export type PlaceKind = 'public' | 'private' | 'dm' | 'group-dm';

/** What Slack says about one conversation, as seen by the bot and by the person who chose it. */
export interface PlaceFacts {
  /** The bot can see it (a private channel the bot is not in does not exist for it). */
  found: boolean;
  kind: PlaceKind;
  archived: boolean;
  botIsMember: boolean;
  /** The chooser is a member (channels); for a DM: it is the chooser's own DM with the bot. */
  chooserIsMember: boolean;
}

/** Where a result was sent to, who chose it, and what Slack said about it. */
export interface ChosenDestination {
  channel: string;
  /** The person who chose it: the actor, or who saved it (channel defaults, an alias). */
  chosenBy: string;
  /** Set when it was saved: what it was saved in, and the command that changes it. */
  saved: SavedIn | null;
  facts: PlaceFacts;
}

export interface SavedIn {
  /** "this channel's run defaults", "alias `restart-prod`" (plain text, escaped where shown). */
  what: string;
  /** How to fix it: "/runbook defaults --to #channel". */
  fix: string;
}

export const SAVED_DEFAULTS: SavedIn = { what: "this channel's run defaults", fix: '/runbook defaults --to #channel' };

export function savedAlias(name: string): SavedIn {
  return { what: `alias \`${name}\``, fix: `/runbook alias add ${name} … --to #channel` };
}

/**
 * Why results may not go there (a clause), or null when they may. `runner` is who the result belongs to;
 * null when the destination is being saved for everyone in the channel (then a DM never passes).
 */
export function destinationProblem(d: ChosenDestination, runner: string | null): string | null {
  const { facts } = d;
  const where = mention.channel(d.channel);
  const who = d.saved ? `${mention.user(d.chosenBy)} is` : 'you are';
  if (!facts.found) return `${where} does not exist, or it is private and I am not in it`;
  if (facts.archived) return `${where} is archived`;
  if (facts.kind === 'dm') {
    if (runner === null)
      return `${where} is a direct message, and what is saved for a channel is used by everyone in it`;
    if (!facts.chooserIsMember) return `${where} is not ${d.saved ? 'their' : 'your'} own direct message with me`;
    if (runner !== d.chosenBy) return `${where} is the direct message of ${mention.user(d.chosenBy)}, not yours`;
    return null;
  }
  if (!facts.botIsMember && facts.kind !== 'public') return `I am not in ${where}, so I cannot post there`;
  if (!facts.chooserIsMember) return `${who} not a member of ${where}`;
  return null;
}

/** The sentence a person reads when the destination does not pass; null when it does. */
export function judgeDestination(d: ChosenDestination, runner: string | null): string | null {
  const problem = destinationProblem(d, runner);
  if (!problem) return null;
  if (!d.saved) {
    return `Results cannot go there: ${problem}. Pick a channel you are in (invite me to a private one with /invite).`;
  }
  return `The result channel saved in ${d.saved.what} by ${mention.user(d.chosenBy)} no longer works: ${problem}. ${mention.user(d.chosenBy)} or someone allowed to change it can fix it with \`${d.saved.fix}\`.`;
}
