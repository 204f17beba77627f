// Who may act, decided once per request before any listener runs (commands, buttons, forms, typeahead,
// shortcuts, mentions, App Home): a bot, the bot itself or Slackbot is never an actor (its request is
// acknowledged and dropped); a person of another organisation (Slack Connect) is refused like anyone
// denied — told privately and audited — unless the policy allows external users. A Workflow Builder step
// carries no person of its own: its actor is decided by the step (../workflow-step/workflow-steps.ts).
import type { AnyMiddlewareArgs, App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { actor } from '../../runs/actor.ts';
import { externalRefusal, recordDenial } from '../../runs/gate.ts';
import { errorMessage } from './common.ts';
import type { SlackDeps } from './deps.ts';
import { respondWith } from './handler-context.ts';
import { postToConversation } from './post-to-conversation.ts';
import { type Claimant, standingOf } from './standing.ts';

interface Incoming extends Claimant {
  /** What was asked, for the audit trail (never the command text: it may carry values). */
  what: string;
  channelId: string | null;
  threadTs: string | null;
}

type Body = Record<string, unknown> & {
  type?: string;
  command?: string;
  user_id?: string;
  team_id?: string;
  channel_id?: string;
  user?: { id?: string; team_id?: string } | string;
  channel?: { id?: string };
  container?: { channel_id?: string };
  actions?: Array<{ action_id?: string }>;
  callback_id?: string;
  view?: { callback_id?: string };
  event?: Record<string, unknown>;
};

/** The person a request comes from, as its payload says; null when it carries none. */
export function incomingOf(body: Body): Incoming | null {
  if (typeof body.command === 'string' && body.user_id) {
    return {
      userId: body.user_id,
      teamHint: body.team_id ?? null,
      what: body.command,
      channelId: body.channel_id ?? null,
      threadTs: null,
    };
  }
  if (body.type === 'event_callback' && body.event) {
    const e = body.event as {
      type?: string;
      user?: unknown;
      user_team?: string;
      team?: string;
      bot_id?: string;
      subtype?: string;
      channel?: unknown;
      ts?: string;
      thread_ts?: string;
    };
    if (e.type === 'function_executed' || typeof e.user !== 'string') return null;
    return {
      userId: e.user,
      teamHint: e.user_team ?? e.team ?? null,
      botHint: Boolean(e.bot_id) || e.subtype === 'bot_message',
      what: e.type ?? 'event',
      channelId: typeof e.channel === 'string' ? e.channel : null,
      threadTs: e.thread_ts ?? e.ts ?? null,
    };
  }
  const user = typeof body.user === 'object' ? body.user : undefined;
  if (!user?.id) return null;
  const what = body.actions?.[0]?.action_id ?? body.view?.callback_id ?? body.callback_id ?? body.type ?? 'interaction';
  return {
    userId: user.id,
    teamHint: user.team_id ?? null,
    what,
    channelId: body.channel?.id ?? body.container?.channel_id ?? null,
    threadTs: null,
  };
}

export function registerWhoActs(app: App, deps: SlackDeps): void {
  app.use(async (args) => {
    const { body, next, client } = args as AnyMiddlewareArgs & { next: () => Promise<void>; client: WebClient };
    const incoming = incomingOf(body as Body);
    if (!incoming) return next();
    const standing = await standingOf(deps, client, incoming);
    if (standing.kind === 'member') return next();
    const extra = args as {
      ack?: (answer?: unknown) => Promise<void>;
      respond?: Parameters<typeof respondWith>[0];
    };
    const type = (body as Body).type;
    if (standing.kind === 'bot') {
      await extra.ack?.();
      deps.logger.debug({ type, what: incoming.what }, 'ignored a request from a bot');
      return;
    }
    const sentence = externalRefusal(deps);
    if (sentence === null) return next();
    await extra.ack?.(type === 'block_suggestion' ? { options: [] } : undefined);
    const who = actor({ userId: incoming.userId, teamId: standing.teamId, groups: [], channelId: incoming.channelId });
    await recordDenial(deps, who, { action: 'slack.external', target: incoming.what, sentence });
    if (type === 'block_suggestion' || type === 'view_closed') return;
    const message = errorMessage(sentence);
    try {
      if (extra.respond) await respondWith(extra.respond)(message);
      else
        await postToConversation(client, deps.logger, incoming.channelId, incoming.userId, {
          ...message,
          ephemeralTo: incoming.userId,
          ...(incoming.threadTs ? { threadTs: incoming.threadTs } : {}),
        });
    } catch (err) {
      deps.logger.warn({ err }, 'could not tell a person of another organisation why they were refused');
    }
  });
}
