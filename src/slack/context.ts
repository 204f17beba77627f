// The request context, built once per request in Bolt middleware for every kind of request (command,
// action, view submission, options, shortcut, event, mention, workflow step) and handed to each
// listener the features register (`registerListeners`). In many-workspace mode the installation Bolt authorized the request for
// (workspace, or Grid org when installed org-wide) goes into the context first, and the dependencies are
// resolved for it (`depsFor`): one workspace's Runbook API connection changes this file, not a listener.
import type { AnyMiddlewareArgs, App, BlockAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { installationFromAuthorization, type TenantInstallation } from '../tenants/installation.ts';
import { inInstallation } from '../tenants/tenant-scope.ts';
import { actorFor } from './kit/actor.ts';
import type { SlackDeps } from './kit/deps.ts';
import {
  answerPrivately,
  attachContext,
  contextOf,
  type HandlerContext,
  isSlackResponseUrl,
  type Reply,
  respondWith,
  responseUrlOf,
} from './kit/handler-context.ts';
import type { EventArgs, Registration, ShortcutArgs } from './kit/listen.ts';
import { postToConversation } from './kit/post-to-conversation.ts';
import { reportFailure } from './kit/report-failure.ts';

type Respond = Parameters<typeof respondWith>[0];

interface RequestArgs {
  body: unknown;
  client: WebClient;
  context: Record<string, unknown> & { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean };
  respond?: Respond;
}

interface CommandBody {
  command: string;
  user_id: string;
  team_id?: string;
  enterprise_id?: string;
  channel_id?: string;
  trigger_id?: string;
  response_url?: unknown;
}

interface EventBody {
  type: 'event_callback';
  team_id?: string;
  enterprise_id?: string;
  event: { type?: string; user?: unknown; team?: unknown; channel?: unknown; ts?: string; thread_ts?: string };
}

/**
 * A mention is answered privately in its thread. Where Slack refuses the ephemeral (a rate limit, any
 * error), the answer goes to the person's DM, else it is dropped and logged: never posted in the
 * thread, where the whole channel would read what was meant for one person.
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

interface InteractionBody {
  user?: { id?: string; team_id?: string };
  team?: { id?: string; enterprise_id?: string } | null;
  enterprise?: { id?: string } | null;
  channel?: { id?: string } | null;
  container?: { channel_id?: string } | null;
  trigger_id?: string;
  response_url?: unknown;
  response_urls?: unknown;
}

/** The request context of an interaction payload (block action, shortcut, view, options) or an event. */
function interactionContext(
  deps: SlackDeps,
  client: WebClient,
  body: InteractionBody,
  respond: Respond | undefined,
  channelOverride?: string | null,
): HandlerContext {
  const userId = body.user?.id ?? '';
  const channelId = channelOverride ?? body.channel?.id ?? body.container?.channel_id ?? null;
  const teamId = body.team?.id ?? body.user?.team_id ?? null;
  const enterpriseId = body.enterprise?.id ?? body.team?.enterprise_id ?? null;
  return {
    deps,
    client,
    userId,
    teamId,
    actor: (options = {}) => actorFor(deps, client, { userId, teamId, enterpriseId, channelId }, options),
    enterpriseId,
    channelId,
    triggerId: body.trigger_id ?? null,
    respond:
      respond && isSlackResponseUrl(responseUrlOf(body), client.slackApiUrl)
        ? respondWith(respond)
        : answerPrivately(deps, client, channelId, userId),
  };
}

/** The request context of one request. */
export function requestContext(args: RequestArgs, deps: SlackDeps): HandlerContext {
  const { client, context } = args;
  const body = args.body as Partial<CommandBody> & Partial<EventBody>;
  if (typeof body.command === 'string') {
    return {
      deps,
      client,
      userId: body.user_id ?? '',
      teamId: body.team_id ?? null,
      enterpriseId: body.enterprise_id ?? null,
      channelId: body.channel_id ?? null,
      triggerId: body.trigger_id ?? null,
      respond: isSlackResponseUrl(body.response_url, client.slackApiUrl)
        ? respondWith(args.respond!)
        : answerPrivately(deps, client, body.channel_id ?? null, body.user_id ?? ''),
      actor: (options = {}) =>
        actorFor(
          deps,
          client,
          {
            userId: body.user_id ?? '',
            teamId: body.team_id ?? null,
            enterpriseId: body.enterprise_id ?? null,
            channelId: body.channel_id ?? null,
          },
          options,
        ),
    };
  }
  if (body.type === 'event_callback' && body.event) {
    const event = body.event;
    const userId = typeof event.user === 'string' ? event.user : '';
    const channelId = typeof event.channel === 'string' ? event.channel : null;
    const base = interactionContext(deps, client, { user: { id: userId } }, undefined, channelId);
    const teamId = (typeof event.team === 'string' ? event.team : null) ?? context.teamId ?? body.team_id ?? null;
    const enterpriseId = context.enterpriseId ?? body.enterprise_id ?? null;
    const actor = (options: { email?: boolean } = {}) =>
      actorFor(deps, client, { userId, teamId, enterpriseId, channelId }, options);
    if (event.type === 'app_mention' && channelId && event.ts) {
      const threadTs = event.thread_ts ?? event.ts;
      return {
        ...base,
        teamId,
        enterpriseId,
        threadTs,
        actor,
        respond: answerInThread(deps, client, channelId, userId, threadTs),
      };
    }
    return { ...base, teamId, enterpriseId, actor };
  }
  return interactionContext(deps, client, body as InteractionBody, args.respond);
}

export interface RequestContextSettings {
  /** Many-workspace mode: put the authorized installation into every request's context. */
  manyWorkspaces?: boolean;
  /** Told about each request's installation before its listeners run (many-workspace mode). */
  onInstallation?: (installation: TenantInstallation) => Promise<void>;
  /**
   * The dependencies of one request, for its installation (undefined outside many-workspace mode, or
   * when the request names no workspace): the same for every request, or one installation's Runbook API.
   */
  depsFor: (installation: TenantInstallation | undefined, args: AnyMiddlewareArgs) => SlackDeps | Promise<SlackDeps>;
  /** Republishes a person's App Home (the home feature's): features do not import each other. */
  publishHome: (
    deps: SlackDeps,
    client: WebClient,
    userId: string,
    where: { teamId: string | null; enterpriseId?: string | null | undefined },
  ) => Promise<void>;
}

/** Builds the request context before any listener runs. */
export function installRequestContext(app: App, settings: RequestContextSettings): void {
  app.use(async (args) => {
    const request = args as unknown as RequestArgs & { next: () => Promise<void> };
    const installation = settings.manyWorkspaces ? installationFromAuthorization(request.context) : undefined;
    const ctx = requestContext(request, await settings.depsFor(installation, args));
    attachContext(request.context, {
      ...ctx,
      installation,
      // Resolved again: what the request changed (a Runbook API connected) shows at once.
      refreshHome: async () =>
        settings.publishHome(await settings.depsFor(installation, args), ctx.client, ctx.userId, ctx),
    });
    if (!installation) return request.next();
    await settings.onInstallation?.(installation);
    // Everything the listeners start runs in the installation's scope (clients without a token of their
    // own, like the watcher's, send this installation's).
    await inInstallation(installation.id, () => request.next());
  });
}

/**
 * Wires each feature's registrations onto the app and hands every callback the request context of its
 * request. A button registered with `what` is acked first and a failure becomes one sentence ("Deleting
 * the schedule failed. …"); any other callback acks itself.
 */
export function registerListeners(app: App, registrations: readonly Registration[]): void {
  for (const r of registrations) {
    switch (r.kind) {
      case 'action': {
        const { what, listener } = r;
        app.action<BlockAction>(r.constraint, async (args) => {
          const ctx = contextOf(args);
          if (what === undefined) return listener(args, ctx);
          await args.ack();
          try {
            await listener(args, ctx);
          } catch (err) {
            await reportFailure(ctx, err, what);
          }
        });
        break;
      }
      case 'view':
        app.view<ViewSubmitAction>(r.callbackId, (args) => r.listener(args, contextOf(args)));
        break;
      case 'command':
        app.command(r.command, (args) => r.listener(args, contextOf(args)));
        break;
      case 'options':
        app.options<'block_suggestion'>(r.constraint, (args) => r.listener(args, contextOf(args)));
        break;
      case 'shortcut':
        app.shortcut(r.callbackId, (args) => r.listener(args as ShortcutArgs<never>, contextOf(args)));
        break;
      case 'event':
        app.event(r.event, (args) => r.listener(args as EventArgs<string>, contextOf(args)));
        break;
      case 'function':
        app.function(r.callbackId, (args) => r.listener(args, contextOf(args)));
        break;
    }
  }
}
