// `@runbook-bot <any /runbook subcommand>` in a channel or a thread: the same grammar, parser and
// handlers as the slash command, answered in that thread (ephemeral, like the command's answers).
// Mentions carry no trigger_id, so a command that opens a form answers with a button that opens it.
import type { App, BlockAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from '../kit/deps.ts';
import type { HandlerContext, Reply } from '../kit/handler-context.ts';
import { ACTIONS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { buttonValue } from '../kit/on-action.ts';
import { postToConversation } from '../kit/post-to-conversation.ts';
import { handleCommandText } from './commands.ts';
import { readOpenFormValue } from './mention-prompt.ts';

/** The mention of the bot at the start (and any other mention of it) removed. */
export function commandTextOf(text: string, botUserId: string | undefined): string {
  const mention = botUserId ? new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g') : /^\s*<@[UW][A-Z0-9]+(?:\|[^>]*)?>/;
  return text.replace(mention, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Answers privately in the thread. Where Slack refuses the ephemeral (a rate limit, any error), the
 * answer goes to the person's DM, else it is dropped and logged: never posted in the thread, where the
 * whole channel would read what was meant for one person.
 */
function answerInThread(deps: SlackDeps, client: WebClient, channel: string, user: string, threadTs: string) {
  return async (reply: Reply): Promise<void> => {
    await postToConversation(client, deps.logger, channel, user, {
      text: reply.text,
      blocks: reply.blocks,
      ephemeralTo: user,
      threadTs,
    });
  };
}

export function registerMentions(app: App, deps: SlackDeps): void {
  app.event('app_mention', async ({ event, client, context }) => {
    // Other bots mentioning us (or our own echoes) are not people asking for something.
    if ('bot_id' in event && event.bot_id) return;
    if (!event.user) return;
    const threadTs = event.thread_ts ?? event.ts;
    const ctx: HandlerContext = {
      deps,
      client,
      userId: event.user,
      teamId: (typeof event.team === 'string' ? event.team : null) ?? context.teamId ?? null,
      channelId: event.channel,
      triggerId: null,
      threadTs,
      respond: answerInThread(deps, client, event.channel, event.user, threadTs),
    };
    await handleCommandText(ctx, commandTextOf(event.text ?? '', context.botUserId));
  });

  // "Open the form" under a mention's answer: the same command again, now with the click's trigger_id.
  app.action<BlockAction>({ action_id: ACTIONS.mentionOpenForm }, async ({ ack, body, client, respond }) => {
    await ack();
    const value = readOpenFormValue(buttonValue(body));
    if (!value) return;
    const ctx: HandlerContext = {
      ...interactionContext(deps, client, body, respond as Parameters<typeof interactionContext>[3]),
      threadTs: value.threadTs,
    };
    await handleCommandText(ctx, value.commandText);
  });
}
