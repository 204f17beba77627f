// Many-workspace mode on Bolt's own OAuth installer (@slack/oauth's InstallProvider inside Bolt's HTTP
// receiver): "Add to Slack" at /slack/install, Slack's redirect at /slack/oauth_redirect, the
// installation and state stores from src/tenants/ (our store, tokens sealed), and the pages a person sees
// at the end. Also the two events that end an installation (app_uninstalled, tokens_revoked) and the two
// that remove or add back an org's workspace (team_access_revoked / _granted), handled before any listener
// and before the request context (they carry no person).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, HTTPReceiverOptions } from '@slack/bolt';
import { type CodedError, ErrorCode, type Installation, type InstallationStore, type StateStore } from '@slack/oauth';
import { installationFromAuthorization, type TenantInstallation } from '../tenants/installation.ts';
import type { RevocationEvent } from '../tenants/revocation.ts';
import type { TeamAccessEvent } from '../tenants/team-access.ts';

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

/** The bot scopes an install asks for: exactly the manifests' (test/unit/manifest.test.ts checks). */
export const BOT_SCOPES: readonly string[] = [
  'app_mentions:read',
  'channels:history',
  'channels:join',
  'channels:read',
  'chat:write',
  'commands',
  'files:write',
  'groups:history',
  'groups:read',
  'im:history',
  'im:write',
  'usergroups:read',
  'users:read',
  'users:read.email',
];

/** The events that end an installation (subscribed in the many-workspace manifest; they need no scope). */
export const UNINSTALL_EVENTS: readonly string[] = ['app_uninstalled', 'tokens_revoked'];
/** The events that remove a workspace from an org-wide install, or add it back (no scope needed either). */
export const TEAM_ACCESS_EVENTS: readonly string[] = [
  'team_access_revoked',
  'team_access_granted',
] satisfies TeamAccessEvent['kind'][];

export interface InstallSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  redirectUri: string | null;
  authorizationUrl: string | null;
  installationStore: InstallationStore;
  stateStore: StateStore;
  /** Told about each finished install (audit, logs): never given a token. */
  onInstalled?: (installation: TenantInstallation, installerUserId: string | null) => void;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto"><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

/** Where the person who installed is sent: which workspace (or org) it is in now, and what to type. */
function installedPage(installation: Installation): string {
  const where = installation.isEnterpriseInstall
    ? `every workspace of ${installation.enterprise?.name ?? installation.enterprise?.id ?? 'your organization'} it is added to`
    : (installation.team?.name ?? installation.team?.id ?? 'your workspace');
  return page(
    'runbook-bot is installed',
    `<p>runbook-bot is installed in ${escapeHtml(where)}.</p>` +
      "<p>In Slack, type <code>/runbook help</code> in any channel, or open the app's Home tab.</p>",
  );
}

/** Why an install did not finish, from the installer's error: a person's choice, a bad link, or ours. */
export type InstallFailure = 'cancelled' | 'link' | 'slack' | 'ours';

export function installFailureKind(error: CodedError): InstallFailure {
  // Slack's redirect with error=access_denied (Cancel on the consent screen).
  if (error.code === ErrorCode.AuthorizationError && /cancelled/i.test(error.message)) return 'cancelled';
  if (
    error.code === ErrorCode.InvalidStateError ||
    error.code === ErrorCode.MissingStateError ||
    error.code === ErrorCode.MissingCodeError
  )
    return 'link';
  // oauth.v2.access refused the code (used twice, expired): Slack's answer about this link.
  if ((error as { code?: string }).code === 'slack_webapi_platform_error') return 'slack';
  return 'ours';
}

/**
 * The HTTP status of the page: a cancel is a normal choice (200), a forged, expired or reused link a
 * client error (400); only our own failures (the store down, Slack unreachable) answer 5xx.
 */
export function installFailureStatus(kind: InstallFailure): number {
  return kind === 'cancelled' ? 200 : kind === 'ours' ? 500 : 400;
}

/** The install did not finish: why, in one sentence, and a link to try again. Never the error's own text. */
function failedPage(error: CodedError, kind: InstallFailure): string {
  const why =
    kind === 'cancelled'
      ? 'The install was cancelled in Slack.'
      : kind === 'link'
        ? 'This install link expired, was already used, or was opened in another browser.'
        : 'Slack did not complete the install.';
  return page(
    'runbook-bot was not installed',
    `<p>${escapeHtml(why)}</p><p><a href="${INSTALL_PATH}">Start again</a>${kind === 'ours' || kind === 'slack' ? ` (code ${escapeHtml(error.code ?? 'unknown')})` : ''}.</p>`,
  );
}

/** The receiver options that turn Bolt's OAuth installer on (Bolt's names; no token in the App). */
export function installerReceiverOptions(
  settings: InstallSettings,
  apiUrl: string,
): Pick<
  HTTPReceiverOptions,
  'clientId' | 'clientSecret' | 'stateSecret' | 'redirectUri' | 'installationStore' | 'scopes' | 'installerOptions'
> {
  return {
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    stateSecret: settings.stateSecret,
    ...(settings.redirectUri ? { redirectUri: settings.redirectUri } : {}),
    installationStore: settings.installationStore,
    scopes: [...BOT_SCOPES],
    installerOptions: {
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      stateStore: settings.stateStore,
      stateVerification: true,
      directInstall: false,
      // Our own landing page: no image or script from elsewhere, the link as the only thing to click.
      renderHtmlForInstallPath: (url: string) =>
        page(
          'Add runbook-bot to Slack',
          `<p>Install runbook-bot in your workspace, or in your whole Enterprise Grid organization.</p><p><a id="add-to-slack" href="${escapeHtml(url)}">Add to Slack</a></p>`,
        ),
      ...(settings.authorizationUrl ? { authorizationUrl: settings.authorizationUrl } : {}),
      // oauth.v2.access, auth.test and token refreshes go where every other Web API call goes.
      clientOptions: { slackApiUrl: apiUrl },
      callbackOptions: {
        success: (installation: Installation, _options: unknown, _req: IncomingMessage, res: ServerResponse) => {
          const tenant = installationFromAuthorization({
            teamId: installation.team?.id,
            enterpriseId: installation.enterprise?.id,
            isEnterpriseInstall: installation.isEnterpriseInstall,
          });
          if (tenant) settings.onInstalled?.(tenant, installation.user?.id ?? null);
          sendPage(res, 200, installedPage(installation));
        },
        failure: (error: CodedError, _options: unknown, _req: IncomingMessage, res: ServerResponse) => {
          const kind = installFailureKind(error);
          sendPage(res, installFailureStatus(kind), failedPage(error, kind));
        },
      },
    },
  };
}

interface UninstallBody {
  type?: string;
  event_time?: number;
  enterprise_id?: string;
  event?: { type?: string; tokens?: { oauth?: string[]; bot?: string[] }; team_ids?: unknown };
}

/**
 * app_uninstalled / tokens_revoked: handed to `revoke` with the installation Bolt names for the event (its
 * team, or its org when installed org-wide). team_access_revoked / _granted (an org-wide install loses or
 * gets back workspaces): handed to `teamAccess` with the org's id and the workspaces named. Nothing after
 * this middleware sees them.
 */
export function registerInstallationEvents(
  app: App,
  handlers: {
    revoke: (installation: TenantInstallation, event: RevocationEvent) => Promise<void>;
    teamAccess: (installationId: string, event: TeamAccessEvent) => Promise<void>;
  },
): void {
  app.use(async (args) => {
    const { body, context, next } = args as unknown as {
      body: UninstallBody;
      context: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean };
      next: () => Promise<void>;
    };
    const kind = body.type === 'event_callback' ? body.event?.type : undefined;
    const sentAt = typeof body.event_time === 'number' ? body.event_time * 1000 : Date.now();
    if (kind === 'app_uninstalled' || kind === 'tokens_revoked') {
      const installation = installationFromAuthorization(context);
      if (!installation) return;
      await handlers.revoke(installation, {
        kind,
        sentAt,
        ...(body.event?.tokens ? { tokens: body.event.tokens } : {}),
      });
      return;
    }
    if (!kind || !TEAM_ACCESS_EVENTS.includes(kind)) return next();
    // Sent only to an org-wide installation: its id is the org's.
    const org = context.enterpriseId ?? body.enterprise_id;
    const teamIds = body.event?.team_ids;
    if (!org || !Array.isArray(teamIds)) return;
    await handlers.teamAccess(org, {
      kind: kind as TeamAccessEvent['kind'],
      teamIds: teamIds.filter((id): id is string => typeof id === 'string'),
      sentAt,
    });
  });
}
