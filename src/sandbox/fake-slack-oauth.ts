// "Add to Slack" against the fake Slack: the consent page at /oauth/v2/authorize (pick a workspace, or an
// Enterprise Grid org for an org-wide install), the code it hands back to the app's redirect URL, and
// oauth.v2.access exchanging the code (or, with token rotation, a refresh token) for a bot token of that
// workspace or org. Tokens it issued answer auth.test as their workspace; uninstalling revokes every
// token of that installation and hands back the two events Slack sends (app_uninstalled, tokens_revoked);
// an org's workspaces removed or added back hand back team_access_revoked / team_access_granted.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { fail, type MethodArgs, type SlackBody } from './fake-slack-context.ts';
import { randomDigits } from './fake-slack-ids.ts';
import { APP_ID, BOT_ID, BOT_USER_ID } from './fake-slack-state.ts';

export interface FakeWorkspace {
  id: string;
  name: string;
  /** The Grid org it belongs to, if any. */
  enterpriseId: string | null;
}

export interface FakeOrg {
  id: string;
  name: string;
}

/** The app as registered with (fake) Slack for OAuth. */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  /** The redirect URL in the app's settings (used when the authorize link names none). */
  redirectUrl: string;
  /** Token rotation on: tokens expire after `expiresInSeconds` and come with a refresh token. */
  tokenRotation?: boolean;
  expiresInSeconds?: number;
}

/** A bot user of one installation: its user id (U…) and bot id (B…). */
export interface FakeBot {
  userId: string;
  botId: string;
}

/** A token the fake issued through OAuth. */
export interface FakeGrant {
  token: string;
  refreshToken: string | null;
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  /** The installation it belongs to: the team, or the org when installed org-wide. */
  installationId: string;
  installerUserId: string;
  scopes: string[];
  expiresAt: number | null;
  revoked: boolean;
}

interface PendingCode {
  installTo: string;
  userId: string;
  scopes: string[];
  redirectUri: string | null;
  createdAt: number;
  used: boolean;
}

export interface FakeOAuth {
  workspaces: readonly FakeWorkspace[];
  orgs: readonly FakeOrg[];
  /** Every token issued, by token. */
  grants: Map<string, FakeGrant>;
  configureApp(app: FakeOAuthApp | null): void;
  readonly app: FakeOAuthApp | null;
  /**
   * The person signed in to (fake) Slack in the browser, as the sandbox's sidebar says when "Add to Slack"
   * is clicked: the consent page installs as them when they belong to the workspace or org picked.
   */
  signIn(userId: string): void;
  /** The consent step: GET /oauth/v2/authorize. Returns false if `url` is not that page. */
  handleAuthorize(url: URL, res: ServerResponse): boolean;
  /** oauth.v2.access (authenticated by client id and secret, no token). */
  access(args: MethodArgs, basicAuth: string | undefined): SlackBody;
  /** The grant a token belongs to, if the fake issued it through OAuth. */
  grantOf(token: string): FakeGrant | undefined;
  /** auth.test for an OAuth token. */
  authTest(grant: FakeGrant): SlackBody;
  /**
   * Gives an installation a bot of its own, as Slack does for each workspace (its installs from then on are
   * answered with it, and its tokens post as it). By default every installation posts as the fake's one bot.
   */
  setBot(installationId: string, bot: FakeBot): void;
  /** The bot an installation's tokens post as, when it has one of its own. */
  botOf(grant: FakeGrant): FakeBot | undefined;
  /**
   * The app is removed from a workspace or org: its tokens stop working at once. Returns the Events API
   * bodies Slack then sends (app_uninstalled, tokens_revoked), for the caller to deliver in any order.
   */
  uninstall(installationId: string): {
    appUninstalled: Record<string, unknown>;
    tokensRevoked: Record<string, unknown>;
  };
  /**
   * An org admin removes the org-wide app from some of the org's workspaces (`team_access_revoked`), or
   * adds it back (`team_access_granted`); the org's tokens keep working. Returns the body Slack sends: the
   * org's authorization (is_enterprise_install true), or with `workspace` as Slack's reference shows it,
   * that workspace in the envelope and is_enterprise_install false.
   */
  teamAccess(
    orgId: string,
    teamIds: string[],
    kind: 'team_access_revoked' | 'team_access_granted',
    workspace?: string,
  ): Record<string, unknown>;
}

/** The sandbox's workspaces (the first is the one the bot starts in) and its Grid org. */
export const SANDBOX_WORKSPACES: readonly FakeWorkspace[] = [
  { id: 'T0SANDBOX', name: 'Sandbox', enterpriseId: null },
  { id: 'T0SECOND', name: 'Second workspace', enterpriseId: null },
  { id: 'T0GRIDA', name: 'Acme EU', enterpriseId: 'E0ACMEGRID' },
  { id: 'T0GRIDB', name: 'Acme US', enterpriseId: 'E0ACMEGRID' },
];
export const SANDBOX_ORGS: readonly FakeOrg[] = [{ id: 'E0ACMEGRID', name: 'Acme (Enterprise Grid)' }];
/** A person in each of the other sandbox workspaces: id, name, real name, workspace, org. */
export const SANDBOX_WORKSPACE_PEOPLE: ReadonlyArray<{
  id: string;
  name: string;
  realName: string;
  teamId: string;
  enterpriseId: string | null;
}> = [
  { id: 'U11SAM', name: 'sam', realName: 'Sam Second', teamId: 'T0SECOND', enterpriseId: null },
  { id: 'U12SID', name: 'sid', realName: 'Sid Second', teamId: 'T0SECOND', enterpriseId: null },
  { id: 'U21EVA', name: 'eva', realName: 'Eva Acme-EU', teamId: 'T0GRIDA', enterpriseId: 'E0ACMEGRID' },
  { id: 'U22UMA', name: 'uma', realName: 'Uma Acme-US', teamId: 'T0GRIDB', enterpriseId: 'E0ACMEGRID' },
];

/** Codes are good for 10 minutes, once (as Slack's). */
const CODE_TTL_MS = 10 * 60_000;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function createFakeOAuth(options: {
  now: () => number;
  workspaces: readonly FakeWorkspace[];
  orgs: readonly FakeOrg[];
  /** Who approves installs on the consent page when nobody of the picked workspace or org is signed in. */
  installerUserId: string;
  /** The people of the fake Slack: the installer is one of the picked workspace's (or org's). */
  people?: () => ReadonlyArray<{ id: string; teamId: string; enterpriseId: string | null }>;
}): FakeOAuth {
  const codes = new Map<string, PendingCode>();
  const grants = new Map<string, FakeGrant>();
  const byRefresh = new Map<string, FakeGrant>();
  const bots = new Map<string, FakeBot>();
  let app: FakeOAuthApp | null = null;
  let signedIn: string | null = null;
  const secret = () => randomBytes(18).toString('base64url');

  // Slack installs as the person approving on its page, who is always a member of what they install into:
  // the one signed in when they belong there, else the workspace's (or org's) first person.
  const installerFor = (installTo: string): string => {
    const people = options.people?.() ?? [];
    const members = people.filter((p) => p.teamId === installTo || p.enterpriseId === installTo);
    if (signedIn && members.some((p) => p.id === signedIn)) return signedIn;
    return members[0]?.id ?? options.installerUserId;
  };

  const issue = (installTo: string, installer: string, scopes: string[]): FakeGrant | null => {
    const org = options.orgs.find((o) => o.id === installTo);
    const workspace = options.workspaces.find((w) => w.id === installTo);
    if (!org && !workspace) return null;
    const rotation = app?.tokenRotation === true;
    const grant: FakeGrant = {
      token: `xoxb-${randomDigits(12)}-${secret()}`,
      refreshToken: rotation ? `xoxe-1-${secret()}` : null,
      teamId: workspace ? workspace.id : null,
      enterpriseId: org ? org.id : (workspace?.enterpriseId ?? null),
      isEnterpriseInstall: Boolean(org),
      installationId: installTo,
      installerUserId: installer,
      scopes,
      expiresAt: rotation ? options.now() + (app?.expiresInSeconds ?? 43_200) * 1000 : null,
      revoked: false,
    };
    grants.set(grant.token, grant);
    if (grant.refreshToken) byRefresh.set(grant.refreshToken, grant);
    return grant;
  };

  const tokenAnswer = (grant: FakeGrant) => {
    const workspace = options.workspaces.find((w) => w.id === grant.teamId);
    const org = options.orgs.find((o) => o.id === grant.enterpriseId);
    return {
      ok: true,
      access_token: grant.token,
      token_type: 'bot',
      scope: grant.scopes.join(','),
      bot_user_id: bots.get(grant.installationId)?.userId ?? BOT_USER_ID,
      app_id: APP_ID,
      team: workspace ? { id: workspace.id, name: workspace.name } : null,
      enterprise: org ? { id: org.id, name: org.name } : null,
      is_enterprise_install: grant.isEnterpriseInstall,
      authed_user: { id: grant.installerUserId },
      ...(grant.refreshToken && grant.expiresAt !== null
        ? { refresh_token: grant.refreshToken, expires_in: Math.round((grant.expiresAt - options.now()) / 1000) }
        : {}),
    };
  };

  const consentPage = (url: URL) => {
    const choices = [
      ...options.workspaces.map((w) => ({ id: w.id, label: `${w.name} (workspace ${w.id})` })),
      ...options.orgs.map((o) => ({ id: o.id, label: `${o.name} (Enterprise Grid org ${o.id}, every workspace)` })),
    ];
    const links = choices
      .map((c) => {
        const target = new URL(url.toString());
        target.searchParams.set('install_to', c.id);
        return `<li><a href="${escapeHtml(`${target.pathname}${target.search}`)}" data-install-to="${escapeHtml(c.id)}">Allow in ${escapeHtml(c.label)}</a></li>`;
      })
      .join('');
    return `<!doctype html><html><head><meta charset="utf-8"><title>Install runbook-bot</title></head><body>
<h1>runbook-bot is requesting permission to access a Slack workspace</h1>
<p>Scopes: ${escapeHtml(url.searchParams.get('scope') ?? '')}</p><ul>${links}</ul></body></html>`;
  };

  return {
    workspaces: options.workspaces,
    orgs: options.orgs,
    grants,
    configureApp(next) {
      app = next;
    },
    get app() {
      return app;
    },
    signIn(userId) {
      signedIn = userId;
    },
    handleAuthorize(url, res) {
      if (url.pathname !== '/oauth/v2/authorize') return false;
      const send = (status: number, html: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
        res.end(html);
      };
      if (!app || url.searchParams.get('client_id') !== app.clientId) {
        send(400, '<p>Invalid client_id parameter.</p>');
        return true;
      }
      const redirect = url.searchParams.get('redirect_uri');
      if (redirect && redirect !== app.redirectUrl) {
        send(400, '<p>redirect_uri did not match any configured URIs.</p>');
        return true;
      }
      const installTo = url.searchParams.get('install_to');
      if (!installTo) {
        send(200, consentPage(url));
        return true;
      }
      const target = new URL(redirect ?? app.redirectUrl);
      const state = url.searchParams.get('state');
      if (url.searchParams.get('deny') === '1') target.searchParams.set('error', 'access_denied');
      else {
        const code = `${randomDigits(12)}.${secret()}`;
        codes.set(code, {
          installTo,
          userId: installerFor(installTo),
          scopes: (url.searchParams.get('scope') ?? '').split(',').filter(Boolean),
          redirectUri: redirect,
          createdAt: options.now(),
          used: false,
        });
        target.searchParams.set('code', code);
      }
      if (state) target.searchParams.set('state', state);
      send(302, '', { location: target.toString() });
      return true;
    },
    access(args, basicAuth) {
      let clientId = typeof args.client_id === 'string' ? args.client_id : undefined;
      let clientSecret = typeof args.client_secret === 'string' ? args.client_secret : undefined;
      if (basicAuth) {
        const [id, pass] = Buffer.from(basicAuth, 'base64').toString('utf8').split(':');
        clientId ??= id;
        clientSecret ??= pass;
      }
      if (!app || clientId !== app.clientId) return fail('invalid_client_id');
      if (clientSecret !== app.clientSecret) return fail('bad_client_secret');
      if (args.grant_type === 'refresh_token') {
        const old = byRefresh.get(String(args.refresh_token ?? ''));
        if (!old || old.revoked) return fail('invalid_refresh_token');
        // The refresh token is spent; the old access token keeps working until it expires.
        byRefresh.delete(old.refreshToken!);
        const fresh = issue(old.installationId, old.installerUserId, old.scopes);
        return fresh ? tokenAnswer(fresh) : fail('invalid_refresh_token');
      }
      const pending = codes.get(String(args.code ?? ''));
      if (!pending || pending.used || options.now() - pending.createdAt > CODE_TTL_MS) return fail('invalid_code');
      const redirect = typeof args.redirect_uri === 'string' ? args.redirect_uri : null;
      if (pending.redirectUri && redirect !== pending.redirectUri) return fail('bad_redirect_uri');
      pending.used = true;
      const grant = issue(pending.installTo, pending.userId, pending.scopes);
      return grant ? tokenAnswer(grant) : fail('invalid_team_for_non_distributed_app');
    },
    grantOf(token) {
      return grants.get(token);
    },
    authTest(grant) {
      const workspace = options.workspaces.find((w) => w.id === grant.teamId);
      const org = options.orgs.find((o) => o.id === grant.enterpriseId);
      return {
        ok: true,
        url: workspace
          ? `https://${workspace.id.toLowerCase()}.slack.com/`
          : `https://${grant.enterpriseId?.toLowerCase()}.enterprise.slack.com/`,
        team: workspace?.name ?? org?.name ?? '',
        user: 'runbook-bot',
        team_id: grant.teamId ?? grant.enterpriseId,
        user_id: bots.get(grant.installationId)?.userId ?? BOT_USER_ID,
        bot_id: bots.get(grant.installationId)?.botId ?? BOT_ID,
        ...(grant.enterpriseId ? { enterprise_id: grant.enterpriseId } : {}),
        is_enterprise_install: grant.isEnterpriseInstall,
      };
    },
    setBot(installationId, bot) {
      bots.set(installationId, bot);
    },
    botOf(grant) {
      return bots.get(grant.installationId);
    },
    teamAccess(orgId, teamIds, kind, workspace) {
      // As Slack sends it to an org-wide app: the org's envelope (or one workspace's), the workspaces in the event.
      return {
        token: 'fake-verification-token',
        team_id: workspace ?? orgId,
        enterprise_id: orgId,
        api_app_id: APP_ID,
        event: { type: kind, team_ids: [...teamIds], event_ts: String(options.now() / 1000) },
        type: 'event_callback',
        event_id: `Ev${randomDigits(10)}`,
        event_time: Math.floor(options.now() / 1000),
        authorizations: [
          {
            enterprise_id: orgId,
            team_id: workspace ?? null,
            user_id: BOT_USER_ID,
            is_bot: true,
            is_enterprise_install: !workspace,
          },
        ],
        is_ext_shared_channel: false,
      };
    },
    uninstall(installationId) {
      const revoked: FakeGrant[] = [];
      for (const grant of grants.values()) {
        if (grant.installationId === installationId && !grant.revoked) {
          grant.revoked = true;
          revoked.push(grant);
        }
      }
      const org = options.orgs.find((o) => o.id === installationId);
      const workspace = options.workspaces.find((w) => w.id === installationId);
      const teamId = workspace?.id ?? null;
      const enterpriseId = org?.id ?? workspace?.enterpriseId ?? null;
      const envelope = (event: Record<string, unknown>) => ({
        token: 'fake-verification-token',
        team_id: teamId ?? enterpriseId,
        ...(enterpriseId ? { enterprise_id: enterpriseId } : {}),
        api_app_id: APP_ID,
        event,
        type: 'event_callback',
        event_id: `Ev${randomDigits(10)}`,
        event_time: Math.floor(options.now() / 1000),
        authorizations: [
          {
            enterprise_id: enterpriseId,
            team_id: teamId,
            user_id: BOT_USER_ID,
            is_bot: true,
            is_enterprise_install: Boolean(org),
          },
        ],
        is_ext_shared_channel: false,
      });
      return {
        appUninstalled: envelope({ type: 'app_uninstalled', event_ts: String(options.now() / 1000) }),
        tokensRevoked: envelope({
          type: 'tokens_revoked',
          tokens: { bot: [BOT_USER_ID] },
          event_ts: String(options.now() / 1000),
        }),
      };
    },
  };
}
