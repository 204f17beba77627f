// Builds the Bolt App from its dependencies and picks the transport: Socket Mode (bot + app
// token), HTTP (bot token + signing secret; commands, interactivity and options at /slack/events)
// or the sandbox (HTTP against the local fake Slack). Many workspaces: Bolt's OAuth installer
// (installs.ts) instead of a bot token, in either transport (Socket Mode: Bolt's SocketModeReceiver
// serves the install pages on PORT beside the health routes). Every Web API call goes to SLACK_API_URL.
import { createServer, type RequestListener, type Server } from 'node:http';
import { App, type CustomRoute, HTTPReceiver, LogLevel, type ReceiverEvent, SocketModeReceiver } from '@slack/bolt';
import type { InstallProvider } from '@slack/oauth';
import { boltLoggerAdapter } from '../logger.ts';
import type { TenantInstallation } from '../tenants/installation.ts';
import type { RevocationEvent } from '../tenants/revocation.ts';
import type { TeamAccessEvent } from '../tenants/team-access.ts';
import { approvalsListeners } from './approvals/register.ts';
import { browseListeners } from './browse/register.ts';
import { commandListeners } from './command/register.ts';
import { connectListeners } from './connect/register.ts';
import { installRequestContext, registerListeners } from './context.ts';
import { executionsListeners } from './executions/register.ts';
import { healthListeners } from './health/register.ts';
import { publishHome } from './home/events.ts';
import { homeListeners } from './home/register.ts';
import { type InstallSettings, installerReceiverOptions, registerInstallationEvents } from './installs.ts';
import type { SlackDeps } from './kit/deps.ts';
import { registerOutgoingGuard } from './kit/guard-outgoing.ts';
import { guardSlackRequests } from './kit/guard-request.ts';
import { registerHandleOnce } from './kit/handle-once.ts';
import type { Registration } from './kit/listen.ts';
import { registerNotConnectedGate } from './kit/not-connected.ts';
import { registerMetadataSeal } from './kit/seal-metadata.ts';
import { registerWhoActs } from './kit/who-acts.ts';
import {
  answerNotInstalled,
  answerNotInstalledOverSocket,
  isAuthorizationFailure,
  notInstalled,
} from './not-installed.ts';
import { runListeners } from './run/register.ts';
import { schedulesListeners } from './schedules/register.ts';
import { subscriptionsListeners } from './subscriptions/register.ts';
import { workflowStepListeners } from './workflow-step/register.ts';

/** Every feature's listeners, as each feature's register.ts lists them. */
export const FEATURE_LISTENERS: Readonly<Record<string, readonly Registration[]>> = {
  command: commandListeners,
  browse: browseListeners,
  run: runListeners,
  schedules: schedulesListeners,
  executions: executionsListeners,
  approvals: approvalsListeners,
  subscriptions: subscriptionsListeners,
  'workflow-step': workflowStepListeners,
  home: homeListeners,
  health: healthListeners,
  connect: connectListeners,
};

export interface SlackAppSettings {
  mode: 'socket' | 'http';
  /** The one workspace's token; null in many-workspace mode (`install`). */
  botToken: string | null;
  /** Many-workspace mode: Bolt's OAuth installer, each request authorized from the installation store. */
  install?:
    | (InstallSettings & {
        /** app_uninstalled / tokens_revoked for an installation. */
        revoke: (installation: TenantInstallation, event: RevocationEvent) => Promise<void>;
        /** team_access_revoked / team_access_granted for an org-wide installation. */
        teamAccess: (installationId: string, event: TeamAccessEvent) => Promise<void>;
        /** Each request's installation, before its listeners (remembers an org's workspaces). */
        onInstallation?: (installation: TenantInstallation) => Promise<void>;
      })
    | null;
  /** Socket Mode's app-level token (many workspaces: one for every installation). */
  appToken?: string | null;
  signingSecret?: string | null;
  apiUrl: string;
  /** HTTP port (HTTP mode: events + health; Socket Mode: health, and the install pages with `install`). 0 = any free port. */
  port: number;
  /** Interface to listen on in HTTP mode (default: all; the sandbox uses loopback only). */
  host?: string;
  /** Extra HTTP routes (metrics, health details). */
  routes?: CustomRoute[];
  /**
   * Many workspaces: each request's deps for its installation (tenant-deps.ts), and the installation in
   * every request's context. Unset: every request gets `deps`.
   */
  depsFor?: (installation: TenantInstallation | undefined) => Promise<SlackDeps>;
}

export interface SlackAppHandle {
  app: App;
  /** Bolt's OAuth installer (many-workspace mode), whose authorize() background work goes through; else null. */
  installer: InstallProvider | null;
  /** Starts listening; resolves with the bound HTTP port. */
  start(): Promise<{ port: number }>;
  /** Stops taking requests, then waits (at most `drainMs`) for the listeners still running. */
  stop(): Promise<void>;
}

/** How long stop() waits for listeners in flight before the runtime closes the store under them. */
export const DRAIN_MS = 10_000;

/**
 * Counts the events being handled (app.processEvent resolves once every listener has finished), so
 * stop() can let them end before the store and the API client close: a listener cut off mid-way
 * (a workflow step between its run and its card) would otherwise fail on "store is closed".
 */
function trackInFlight(app: App): () => Promise<void> {
  const inFlight = new Set<Promise<void>>();
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event: ReceiverEvent) => {
    const work = processEvent(event);
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
    return work;
  };
  return async () => {
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
    });
    await Promise.race([Promise.all([...inFlight]), timeout]);
    clearTimeout(timer);
  };
}

/**
 * Bolt's listener throws for a path it has no route for (it expects its own server to catch that);
 * on ours an unknown GET would be an uncaught exception. Answer 404 instead.
 */
function answer404OnUnknownPath(listener: RequestListener): RequestListener {
  return (req, res) => {
    try {
      listener(req, res);
    } catch {
      if (!res.headersSent) res.writeHead(404);
      res.end();
    }
  };
}

/**
 * The HTTP server Bolt's SocketModeReceiver makes for its custom routes and install pages (a private
 * field of the receiver: this and ops/slack-connection.ts are the places that reach into it).
 */
function socketReceiverServer(receiver: SocketModeReceiver | null): Server | null {
  return (receiver as unknown as { httpServer?: Server } | null)?.httpServer ?? null;
}

/**
 * Bolt's Socket Mode request listener is async and lets a failure reject unanswered (the installer
 * rethrows when the state store cannot be written): that would be an unhandled rejection. Answer 500.
 */
function guardAsyncListener(server: Server): void {
  const listeners = server.listeners('request') as Array<(...args: Parameters<RequestListener>) => unknown>;
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    for (const listener of listeners) {
      Promise.resolve()
        .then(() => listener(req, res))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    }
  });
}

export function createSlackApp(deps: SlackDeps, settings: SlackAppSettings): SlackAppHandle {
  const logger = boltLoggerAdapter(deps.logger);
  const routes: CustomRoute[] = [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok' }));
      },
    },
    ...(settings.routes ?? []),
  ];
  // Interactive answers must arrive while the person is still looking: a few quick retries (Slack's
  // Retry-After is always honoured) instead of the Web API client's default of ten over 30 minutes.
  const clientOptions = {
    slackApiUrl: settings.apiUrl,
    retryConfig: { retries: 4, factor: 1.8, minTimeout: 250, maxTimeout: 3_000, randomize: true },
  };

  let app: App;
  let receiver: HTTPReceiver | null = null;
  let socket: SocketModeReceiver | null = null;
  if (settings.mode === 'http') {
    if (!settings.signingSecret) throw new Error('HTTP mode needs a signing secret');
    receiver = new HTTPReceiver({
      signingSecret: settings.signingSecret,
      endpoints: '/slack/events',
      customRoutes: routes,
      logger,
      processBeforeResponse: false,
      unhandledRequestTimeoutMillis: 2_900,
      ...(settings.install
        ? {
            ...installerReceiverOptions(settings.install, settings.apiUrl),
            // A workspace without the app is told so (not-installed.ts) instead of an empty 200.
            processEventErrorHandler: answerNotInstalled(settings.install.redirectUri, deps.logger, settings.apiUrl),
          }
        : {}),
    });
    // With the installer Bolt authorizes each request from the installation store: no token here.
    const token = settings.install ? {} : { token: settings.botToken ?? undefined };
    app = new App({ ...token, receiver, clientOptions, logger, logLevel: LogLevel.INFO, extendedErrorHandler: true });
  } else {
    if (!settings.appToken) throw new Error('Socket Mode needs an app token');
    if (!settings.install && !settings.botToken)
      throw new Error('Socket Mode needs a bot token or the OAuth installer');
    const installer = settings.install ? installerReceiverOptions(settings.install, settings.apiUrl) : null;
    socket = new SocketModeReceiver({
      appToken: settings.appToken,
      logger,
      logLevel: LogLevel.INFO,
      customRoutes: routes,
      ...installer,
      // Its HTTP server (health, and the install pages with the installer) listens on PORT. The Socket Mode
      // client's own Web API call (apps.connections.open) and the installer's go to SLACK_API_URL too.
      installerOptions: { ...installer?.installerOptions, port: settings.port, clientOptions },
      // A workspace without the app is told so in the envelope's ack (not-installed.ts), as over HTTP.
      ...(settings.install
        ? {
            processEventErrorHandler: answerNotInstalledOverSocket(
              settings.install.redirectUri,
              deps.logger,
              settings.apiUrl,
            ),
          }
        : {}),
    });
    // With the installer Bolt authorizes each request from the installation store: no token here.
    const token = settings.install ? {} : { token: settings.botToken ?? undefined };
    app = new App({
      ...token,
      receiver: socket,
      clientOptions,
      logger,
      logLevel: LogLevel.INFO,
      extendedErrorHandler: true,
    });
  }

  // Each error comes with its body (extendedErrorHandler): a failed authorize (many workspaces: no
  // installation for the request's workspace) is answered by the receiver, never logged with the body.
  app.error(async (args: unknown) => {
    const { error, body } = args as { error: Error; body?: unknown };
    if (settings.install && isAuthorizationFailure(error)) notInstalled(error, body);
    deps.logger.error({ err: error }, 'unhandled error in a Slack listener');
  });

  registerOutgoingGuard(app);
  registerHandleOnce(app, deps);
  // An installation's end is handled before anything that needs a person or a token.
  if (settings.install) registerInstallationEvents(app, settings.install);
  registerWhoActs(app, deps);
  registerMetadataSeal(app, deps.access.seal, deps.logger, Boolean(settings.install));
  // The request context last, so it holds the guarded, sealing client and the opened metadata.
  installRequestContext(app, {
    manyWorkspaces: Boolean(settings.install) || Boolean(settings.depsFor),
    ...(settings.install?.onInstallation ? { onInstallation: settings.install.onInstallation } : {}),
    depsFor: settings.depsFor ?? (() => deps),
    publishHome,
  });
  // Many workspaces: nothing but App Home and Connect until the installation has connected its Runbook API.
  if (settings.depsFor) registerNotConnectedGate(app);
  for (const listeners of Object.values(FEATURE_LISTENERS)) registerListeners(app, listeners);
  const drain = trackInFlight(app);

  let server: Server | null = null;
  return {
    app,
    installer: receiver?.installer ?? socket?.installer ?? null,
    async start() {
      if (receiver) {
        // Our own server so every request passes the guard before Bolt parses it.
        const listening = createServer(guardSlackRequests(answer404OnUnknownPath(receiver.requestListener)));
        server = listening;
        await new Promise<void>((resolve, reject) => {
          listening.once('error', reject);
          if (settings.host) listening.listen(settings.port, settings.host, () => resolve());
          else listening.listen(settings.port, () => resolve());
        });
        const address = listening.address();
        return { port: typeof address === 'object' && address ? address.port : settings.port };
      }
      const http = socketReceiverServer(socket);
      if (!http) {
        await app.start();
        return { port: settings.port };
      }
      guardAsyncListener(http);
      // Bolt listens without waiting: wait here, so a taken port fails start-up and port 0 is known.
      const listening = new Promise<void>((resolve, reject) => {
        http.once('listening', resolve);
        http.once('error', reject);
      });
      const started = app.start();
      try {
        await listening;
      } catch (err) {
        await started.catch(() => undefined);
        await app.stop().catch(() => undefined);
        throw err;
      }
      await started;
      const address = http.address();
      return { port: typeof address === 'object' && address ? address.port : settings.port };
    },
    async stop() {
      if (server) {
        const closing = server;
        server = null;
        closing.closeAllConnections();
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      } else {
        await app.stop();
        // Bolt's close waits for idle keep-alive connections (an install page's browser): end them.
        socketReceiverServer(socket)?.closeAllConnections();
      }
      await drain();
    },
  };
}
