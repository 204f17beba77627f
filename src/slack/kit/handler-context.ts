// The request context: what every listener and handler gets, built once per request by the middleware
// in ../context.ts — the dependencies (resolved per request), the request's Web API client, who asked
// (user, team, enterprise) and where, and a way to answer (the response_url of the command or action,
// ephemeral by default; else privately in the channel or by DM).

import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../runs/actor.ts';
import type { TenantInstallation } from '../../tenants/installation.ts';
import { actorFor } from './actor.ts';
import type { SlackMessage } from './common.ts';
import type { SlackDeps } from './deps.ts';
import { guardOutgoing } from './outgoing-guard.ts';
import { postToConversation } from './post-to-conversation.ts';

export interface Reply extends SlackMessage {
  /** Replace the message the action came from instead of adding one. */
  replaceOriginal?: boolean;
}

export interface HandlerContext {
  deps: SlackDeps;
  client: WebClient;
  userId: string;
  teamId: string | null;
  /** The Enterprise Grid org, when the request came from one. */
  enterpriseId?: string | null;
  /**
   * The installation that serves this request (many-workspace mode: the workspace, or the Grid org for
   * an org-wide install, Bolt authorized it for). Undefined in single-workspace and sandbox modes.
   */
  installation?: TenantInstallation | undefined;
  channelId: string | null;
  /** trigger_id for opening a modal (valid 3 s after the user's action). */
  triggerId: string | null;
  respond: (reply: Reply) => Promise<void>;
  /** The person as the use cases take them (user groups read fail-closed; the email when asked for). */
  actor: (options?: { email?: boolean }) => Promise<Actor>;
  /** Republishes this person's App Home (the home feature's, handed in by app.ts). */
  refreshHome?: () => Promise<void>;
  /** The thread the person acted in (a mention in a thread): answers and live cards go there. */
  threadTs?: string | null;
}

// A response_url is posted to only when it is Slack's: https on hooks.slack.com (or GovSlack's), or on the
// origin of the Slack API base the bot was given (the sandbox's and the tests' fake Slack). A body that
// carries any other URL is not followed — the bot would send its answers, and a person's data, wherever it
// was told: the caller answers privately through the Web API instead.
const SLACK_HOOK_HOSTS = new Set(['hooks.slack.com', 'hooks.slack-gov.com']);

export function isSlackResponseUrl(url: unknown, slackApiUrl: string | undefined): url is string {
  if (typeof url !== 'string') return false;
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (!parsed || parsed.username || parsed.password) return false;
  if (parsed.protocol === 'https:' && parsed.port === '' && SLACK_HOOK_HOSTS.has(parsed.hostname)) return true;
  return !!slackApiUrl && URL.canParse(slackApiUrl) && new URL(slackApiUrl).origin === parsed.origin;
}

/** The response_url of an interaction payload (a block action's, or a view submission's first). */
export function responseUrlOf(body: {
  response_url?: unknown;
  response_urls?: Array<{ response_url?: unknown }> | unknown;
}): unknown {
  if (body.response_url !== undefined) return body.response_url;
  return Array.isArray(body.response_urls)
    ? (body.response_urls[0] as { response_url?: unknown })?.response_url
    : undefined;
}

/** Adapts Bolt's `respond` to our Reply. */
export function respondWith(
  respond: (message: {
    text: string;
    blocks: SlackMessage['blocks'];
    response_type?: 'ephemeral' | 'in_channel';
    replace_original?: boolean;
  }) => Promise<unknown>,
): HandlerContext['respond'] {
  return async (reply) => {
    // response_url bodies leave through the outgoing guard like every Web API call.
    await respond(
      guardOutgoing({
        text: reply.text,
        blocks: reply.blocks,
        response_type: 'ephemeral' as const,
        ...(reply.replaceOriginal ? { replace_original: true } : {}),
      }),
    );
  };
}

/**
 * A `respond` onto a response_url kept from an earlier request (sealed in a view's metadata, so ours): it
 * answers in the conversation of that request, `replaceOriginal` replacing the message it came from.
 * Slack accepts a response_url for 30 minutes and five answers; past that the answer fails.
 */
export function respondAt(url: string): HandlerContext['respond'] {
  return respondWith(async (message) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
    if (!response.ok) throw new Error(`the response_url answered ${response.status}`);
  });
}

/**
 * A `respond` without a response_url (modals, App Home): privately in the channel, else (or when Slack
 * refuses the ephemeral) by DM; never in the channel for everyone.
 */
export function answerPrivately(
  deps: SlackDeps,
  client: WebClient,
  channelId: string | null,
  userId: string,
): HandlerContext['respond'] {
  return async (reply) => {
    await postToConversation(client, deps.logger, channelId, userId, {
      text: reply.text,
      blocks: reply.blocks,
      ephemeralTo: userId,
    });
  };
}

/** The context of a view submission whose channel is in its metadata: private answers go there. */
export function inChannel(ctx: HandlerContext, channelId: string | null): HandlerContext {
  return {
    ...ctx,
    channelId,
    respond: answerPrivately(ctx.deps, ctx.client, channelId, ctx.userId),
    actor: (options = {}) => actorFor(ctx.deps, ctx.client, { ...ctx, channelId }, options),
  };
}

const REQUEST_CONTEXT = 'runbookRequest';

/** Keeps the request context on Bolt's per-request `context` (done once, by ../context.ts). */
export function attachContext(context: Record<string, unknown>, ctx: HandlerContext): void {
  context[REQUEST_CONTEXT] = ctx;
}

/** The request context the middleware built for this request. */
export function contextOf(args: { context: Record<string, unknown> }): HandlerContext {
  const ctx = args.context[REQUEST_CONTEXT] as HandlerContext | undefined;
  if (!ctx) throw new Error('No request context: installRequestContext must run before the listeners.');
  return ctx;
}
