// Builds the Bolt App from its dependencies and picks the transport: Socket Mode (bot + app
// token), HTTP (bot token + signing secret; commands, interactivity and options at /slack/events)
// or the sandbox (HTTP against the local fake Slack). Many workspaces: HTTP with Bolt's OAuth installer
// (installs.ts) instead of a bot token. Every Web API call goes to SLACK_API_URL.
import { createServer, type RequestListener, type Server } from 'node:http';
import { App, type CustomRoute, HTTPReceiver, LogLevel, type ReceiverEvent } from '@slack/bolt';
import type { InstallProvider } from '@slack/oauth';
import { boltLoggerAdapter } from '../logger.ts';
import type { TenantInstallation } from '../tenants/installation.ts';
import type { RevocationEvent } from '../tenants/revocation.ts';
import { approvalsListeners } from './approvals/register.ts';
import { browseListeners } from './browse/register.ts';
import { commandListeners } from './command/register.ts';
import { connectListeners } from './connect/register.ts';
import { installRequestContext, registerListeners } from './context.ts';
import { executionsListeners } from './executions/register.ts';
import { healthListeners } from './health/register.ts';
import { publishHome } from './home/events.ts';
import { homeListeners } from './home/register.ts';
import { type InstallSettings, installerReceiverOptions, registerUninstallEvents } from './installs.ts';
import type { SlackDeps } from './kit/deps.ts';
import { registerOutgoingGuard } from './kit/guard-outgoing.ts';
import { guardSlackRequests } from './kit/guard-request.ts';
import { registerHandleOnce } from './kit/handle-once.ts';
import type { Registration } from './kit/listen.ts';
import { registerNotConnectedGate } from './kit/not-connected.ts';
import { registerMetadataSeal } from './kit/seal-metadata.ts';
import { registerWhoActs } from './kit/who-acts.ts';
import { answerNotInstalled, isAuthorizationFailure, notInstalled } from './not-installed.ts';
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
  /** Many-workspace mode (HTTP only): Bolt's OAuth installer, each request authorized from the installation store. */
  install?:
    | (InstallSettings & {
        /** app_uninstalled / tokens_revoked for an installation. */
        revoke: (installation: TenantInstallation, event: RevocationEvent) => Promise<void>;
        /** Each request's installation, before its listeners (remembers an org's workspaces). */
        onInstallation?: (installation: TenantInstallation) => Promise<void>;
      })
    | null;
  appToken?: string | null;
  signingSecret?: string | null;
  apiUrl: string;
  /** HTTP port (HTTP mode: events + health; Socket Mode: health only). 0 = any free port. */
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
            processEventErrorHandler: answerNotInstalled(settings.install.redirectUri, deps.logger),
          }
        : {}),
    });
    // With the installer Bolt authorizes each request from the installation store: no token here.
    const token = settings.install ? {} : { token: settings.botToken ?? undefined };
    app = new App({ ...token, receiver, clientOptions, logger, logLevel: LogLevel.INFO, extendedErrorHandler: true });
  } else {
    if (!settings.appToken || !settings.botToken) throw new Error('Socket Mode needs a bot token and an app token');
    if (settings.install) throw new Error('Many-workspace mode runs over HTTP, not Socket Mode');
    app = new App({
      token: settings.botToken,
      appToken: settings.appToken,
      socketMode: true,
      customRoutes: routes,
      // The Socket Mode client's own Web API calls (apps.connections.open) go to SLACK_API_URL too.
      installerOptions: { port: settings.port, clientOptions },
      clientOptions,
      logger,
      logLevel: LogLevel.INFO,
    });
  }

  // HTTP mode gets the body with each error (extendedErrorHandler): a failed authorize (many workspaces: no
  // installation for the request's workspace) is answered by the receiver, never logged with the body.
  app.error(async (args: unknown) => {
    const { error, body } = (settings.mode === 'http' ? args : { error: args }) as { error: Error; body?: unknown };
    if (settings.install && isAuthorizationFailure(error)) notInstalled(error, body);
    deps.logger.error({ err: error }, 'unhandled error in a Slack listener');
  });

  registerOutgoingGuard(app);
  registerHandleOnce(app, deps);
  // An installation's end is handled before anything that needs a person or a token.
  if (settings.install) registerUninstallEvents(app, settings.install.revoke);
  registerWhoActs(app, deps);
  registerMetadataSeal(app, deps.access.seal, deps.logger);
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
    installer: receiver?.installer ?? null,
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
      await app.start(settings.port);
      return { port: settings.port };
    },
    async stop() {
      if (server) {
        const closing = server;
        server = null;
        closing.closeAllConnections();
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      } else {
        await app.stop();
      }
      await drain();
    },
  };
}
