// Many workspaces: a request from a workspace the app is not installed in (never, or no more: its tokens
// are gone). Bolt's authorize finds no installation, so no listener runs; Bolt hands the AuthorizationError
// to the app's error handler (extendedErrorHandler: with the body) and would then ack with an empty 200.
// The error handler instead throws `NotInstalled`, carrying only what the answer needs (never the body:
// its response_url and trigger_id are not logged); Bolt's HTTP receiver passes it to its
// processEventErrorHandler, which answers the person in one sentence: a slash command with an ephemeral
// reply, a click with an ephemeral through its response_url, a form with a view saying it, a typeahead with
// no options. Events, global shortcuts and closed forms carry nowhere to answer without a token: a plain
// 200, and one log line.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import {
  defaultProcessEventErrorHandler,
  HTTPModuleFunctions,
  type ReceiverProcessEventErrorHandlerArgs,
  type SocketModeReceiverProcessEventErrorHandlerArgs,
} from '@slack/bolt';
import type { Logger } from '../logger.ts';
import { INSTALL_PATH } from './installs.ts';
import { isSlackResponseUrl } from './kit/handler-context.ts';

/** How a request from a workspace without the app is answered. */
type Answer =
  | { kind: 'command' }
  | { kind: 'response-url'; responseUrl: string }
  | { kind: 'view' }
  | { kind: 'options' }
  | { kind: 'none' };

/** Thrown from the app's error handler so the receiver answers the request (not an error of ours). */
export class NotInstalled extends Error {
  readonly answer: Answer;
  /** Bolt's installation store found none (vs. the store could not be read). */
  readonly missing: boolean;
  readonly where: { teamId: string | null; enterpriseId: string | null; type: string };
  constructor(answer: Answer, missing: boolean, where: NotInstalled['where']) {
    super('the request comes from a workspace the app is not installed in');
    this.name = 'NotInstalled';
    this.answer = answer;
    this.missing = missing;
    this.where = where;
  }
}

type Body = Record<string, unknown> & {
  type?: string;
  command?: string;
  team_id?: string;
  enterprise_id?: string;
  response_url?: string;
  team?: { id?: string; enterprise_id?: string } | null;
  enterprise?: { id?: string } | null;
  user?: { team_id?: string } | null;
  view?: { response_urls?: Array<{ response_url?: string }> };
};

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function answerOf(body: Body): Answer {
  if (typeof body.command === 'string') return { kind: 'command' };
  if (body.type === 'view_submission') return { kind: 'view' };
  if (body.type === 'block_suggestion') return { kind: 'options' };
  const responseUrl = str(body.response_url);
  if (responseUrl && /^https?:\/\//.test(responseUrl)) return { kind: 'response-url', responseUrl };
  return { kind: 'none' };
}

/** Whether an error (or what it wraps: Bolt's and @slack/oauth's AuthorizationError) is InstallationNotFoundError. */
function isNotFound(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e; depth++) {
    if ((e as { name?: unknown }).name === 'InstallationNotFoundError') return true;
    const next = e as { original?: unknown; cause?: unknown };
    e = next.original ?? next.cause;
  }
  return false;
}

/** The error handler's part: Bolt's authorize failed for this body. Throws `NotInstalled`. */
export function notInstalled(error: unknown, rawBody: unknown): never {
  const body = (rawBody && typeof rawBody === 'object' ? rawBody : {}) as Body;
  const teamId = str(body.team_id) ?? str(body.team?.id) ?? str(body.user?.team_id);
  const enterpriseId = str(body.enterprise_id) ?? str(body.enterprise?.id) ?? str(body.team?.enterprise_id);
  const type = str(body.command) ? 'slash_command' : (str(body.type) ?? 'unknown');
  throw new NotInstalled(answerOf(body), isNotFound(error), { teamId, enterpriseId, type });
}

/** Whether Bolt's error is the failure of authorize (no installation, or none readable). */
export function isAuthorizationFailure(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'slack_bolt_authorization_error';
}

/**
 * Where people install the app: SLACK_REDIRECT_URI's origin when set, else the host Slack called (as the
 * proxy in front forwards it). Null when neither is a plain host.
 */
export function installUrlOf(redirectUri: string | null, request: IncomingMessage): string | null {
  if (redirectUri) return new URL(INSTALL_PATH, redirectUri).toString();
  const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.split(',')[0]?.trim();
  const host = first(request.headers['x-forwarded-host']) ?? first(request.headers.host);
  if (!host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host)) return null;
  const forwarded = first(request.headers['x-forwarded-proto']);
  const proto =
    forwarded === 'http' || forwarded === 'https'
      ? forwarded
      : (request.socket as TLSSocket).encrypted
        ? 'https'
        : 'http';
  return `${proto}://${host}${INSTALL_PATH}`;
}

/** The one sentence: not installed (and where to add it), or the installation could not be read. */
export function notInstalledSentence(missing: boolean, installUrl: string | null): string {
  if (!missing) {
    return 'runbook-bot could not look up its installation in this workspace just now, so nothing was done; try again in a minute.';
  }
  return installUrl
    ? `runbook-bot is not installed in this workspace — ask an admin to add it: ${installUrl}`
    : "runbook-bot is not installed in this workspace — ask an admin to add it from the app's install page.";
}

/** What a `NotInstalled` request is answered: the ack's body (null: an empty ack) and, for a click, a post to its response_url. */
function replyOf(
  error: NotInstalled,
  installUrl: string | null,
): { ack: unknown; responseUrl: string | null; text: string } {
  // Escaped for mrkdwn: the URL is built from a checked host, but the sentence is sent as text.
  const text = notInstalledSentence(error.missing, installUrl)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
  const { answer } = error;
  switch (answer.kind) {
    case 'command':
      return { ack: { response_type: 'ephemeral', text }, responseUrl: null, text };
    case 'view':
      return {
        ack: {
          response_action: 'update',
          view: {
            type: 'modal',
            title: { type: 'plain_text', text: 'runbook-bot' },
            close: { type: 'plain_text', text: 'Close' },
            blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
          },
        },
        responseUrl: null,
        text,
      };
    case 'options':
      return { ack: { options: [] }, responseUrl: null, text };
    case 'response-url':
      return { ack: null, responseUrl: answer.responseUrl, text };
    default:
      return { ack: null, responseUrl: null, text };
  }
}

type Post = (url: string, body: unknown) => Promise<unknown>;
const postJson: Post = (url, body) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * Logs the one line, then tells the person through the click's response_url when it is Slack's
 * (kit/handler-context.ts: any other host is not posted to; there is no token here to answer otherwise).
 */
async function tell(
  error: NotInstalled,
  reply: ReturnType<typeof replyOf>,
  logger: Logger,
  post: Post,
  slackApiUrl: string | undefined,
): Promise<void> {
  logger.warn(
    { ...error.where, installed: error.missing ? 'no' : 'unknown' },
    error.missing
      ? 'a request from a workspace runbook-bot is not installed in: nothing ran, the person was told how to add it'
      : 'a request whose installation could not be read: nothing ran, the person was told to try again',
  );
  if (!reply.responseUrl || !isSlackResponseUrl(reply.responseUrl, slackApiUrl)) return;
  await post(reply.responseUrl, { response_type: 'ephemeral', replace_original: false, text: reply.text }).catch(
    (err: unknown) => logger.warn({ err: err instanceof Error ? err.name : 'error' }, 'could not tell the person why'),
  );
}

/**
 * Bolt's HTTP receiver option `processEventErrorHandler`: answers a `NotInstalled` request as said above;
 * any other error goes to Bolt's default handler.
 */
export function answerNotInstalled(
  redirectUri: string | null,
  logger: Logger,
  slackApiUrl: string | undefined,
  post: Post = postJson,
): (args: ReceiverProcessEventErrorHandlerArgs) => Promise<boolean> {
  return async (args) => {
    const { error, request, response } = args;
    if (!(error instanceof NotInstalled)) return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
    if (response.headersSent) return true;
    const reply = replyOf(error, installUrlOf(redirectUri, request));
    if (reply.ack === null) response.writeHead(200).end();
    else {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(reply.ack));
    }
    await tell(error, reply, logger, post, slackApiUrl);
    return true;
  };
}

/**
 * The same over Socket Mode (`SocketModeReceiver`'s `processEventErrorHandler`): the answer goes in the
 * envelope's ack, and the install link can only come from SLACK_REDIRECT_URI (no Host header here).
 */
export function answerNotInstalledOverSocket(
  redirectUri: string | null,
  logger: Logger,
  slackApiUrl: string | undefined,
  post: Post = postJson,
): (args: SocketModeReceiverProcessEventErrorHandlerArgs) => Promise<boolean> {
  return async (args) => {
    const { error, event } = args;
    if (!(error instanceof NotInstalled)) return defaultProcessEventErrorHandler(args);
    const reply = replyOf(error, redirectUri ? new URL(INSTALL_PATH, redirectUri).toString() : null);
    await (reply.ack === null ? event.ack() : event.ack(reply.ack));
    await tell(error, reply, logger, post, slackApiUrl);
    return false;
  };
}
