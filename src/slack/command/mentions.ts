// `@runbook-bot <any /runbook subcommand>` in a channel or a thread: the same grammar, parser and
// handlers as the slash command, answered in that thread (ephemeral, like the command's answers).
// Mentions carry no trigger_id, so a command that opens a form answers with a button that opens it.
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs, EventArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { handleCommandText } from './commands.ts';
import { readOpenFormValue } from './mention-prompt.ts';

/** The mention of the bot at the start (and any other mention of it) removed; links Slack made, as typed. */
export function commandTextOf(text: string, botUserId: string | undefined): string {
  const mention = botUserId ? new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g') : /^\s*<@[UW][A-Z0-9]+(?:\|[^>]*)?>/;
  return unlink(text.replace(mention, ' ')).replace(/\s+/g, ' ').trim();
}

/**
 * Slack turns a URL or an email address typed in a message into a link before the event reaches us
 * (`<https://x.io/a>`, `<http://x.io|x.io>`, `<mailto:a@x.io|a@x.io>`); a slash command gets them as typed.
 * Each is put back as typed (its label, else the address), so a line means the same from both.
 */
function unlink(text: string): string {
  return text.replace(/<((?:https?|mailto):[^|>\s]+)(?:\|([^>]*))?>/g, (_link, target: string, label?: string) =>
    label !== undefined && label !== '' ? label : target.replace(/^mailto:/, ''),
  );
}

/** `@runbook-bot …` in a channel or thread: the line after the mention, answered in that thread. */
export async function mentionReceived(
  { event, context }: EventArgs<'app_mention'>,
  ctx: HandlerContext,
): Promise<void> {
  // Other bots mentioning us (or our own echoes) are not people asking for something.
  if ('bot_id' in event && event.bot_id) return;
  if (!event.user) return;
  await handleCommandText(ctx, commandTextOf(event.text ?? '', context.botUserId));
}

/** "Open the form" under a mention's answer: the same command again, now with the click's trigger_id. */
export async function openFormClicked({ ack, body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  await ack();
  const value = readOpenFormValue(buttonValue(body));
  if (!value) return;
  await handleCommandText({ ...ctx, threadTs: value.threadTs }, value.commandText);
}
