// All environment parsing lives here; nobody else reads process.env. One zod model per concern,
// empty strings count as unset, every problem is reported at once, and a disabled feature is null.
import path from 'node:path';
import { z } from 'zod';
import { KEY_HOWTO, parseSecretKey } from './tenants/secret-box.ts';

export const EMULATOR_DEFAULT_API_KEY = 'local-dev-key';

type Env = Record<string, string | undefined>;

const optionalString = z.string().optional();
const intIn = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).optional().default(fallback);
const numberIn = (min: number, max: number, fallback: number) =>
  z.coerce.number().min(min).max(max).optional().default(fallback);
const boolFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));
const urlString = z.url({ protocol: /^https?$/ });

const LogModel = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional().default('info'),
  /** json | pretty; unset → pretty in sandbox mode on a terminal, JSON otherwise (decided by main.ts). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
});

const ObserveModel = z.object({
  /** Serve /metrics on this port only (not on PORT). Unset → /metrics is on PORT. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** Tracing is on when this is set (OTLP over HTTP, e.g. http://otel-collector:4318). */
  OTEL_EXPORTER_OTLP_ENDPOINT: urlString.optional(),
  OTEL_SERVICE_NAME: z.string().optional().default('runbook-bot'),
});

const ApiModel = z.object({
  RUNBOOK_API_URL: urlString.optional(),
  /** Many workspaces: the Runbook API addresses a workspace may connect to (comma-separated). */
  RUNBOOK_API_URLS: z
    .string()
    .optional()
    .transform((text) =>
      (text ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(urlString)),
  RUNBOOK_API_KEY: optionalString,
  RUNBOOK_API_TIMEOUT_MS: intIn(100, 600_000, 10_000),
  RUNBOOK_API_MAX_RETRIES: intIn(0, 10, 3),
  RUNBOOK_API_MAX_BODY_BYTES: intIn(65_536, 1_073_741_824, 4 * 1024 * 1024),
  RUNBOOK_OUTPUT_ENCODING: z.enum(['base64', 'plain']).optional().default('base64'),
  RUNBOOK_SEND_INPUTS_FIELD: boolFlag(false),
  EMULATOR_PORT: intIn(0, 65_535, 0),
  EMULATOR_FILTER_MODE: z.enum(['apply', 'ignore', 'plain-terms', 'reject']).optional().default('apply'),
});

const ProxyModel = z.object({
  RUNBOOK_PROXIES: optionalString,
  RUNBOOK_DEFAULT_PROXY_ID: optionalString,
});

const SlackModel = z.object({
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'must start with xoxb-').optional(),
  SLACK_APP_TOKEN: z.string().startsWith('xapp-', 'must start with xapp-').optional(),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_API_URL: urlString.optional(),
  PORT: intIn(0, 65_535, 3001),
  SANDBOX_PORT: intIn(0, 65_535, 3000),
  /** Sandbox: several workspaces and a Grid org, each added with "Add to Slack" (the bot in many-workspace mode). */
  SANDBOX_MANY_WORKSPACES: boolFlag(false),
});

/** Many workspaces: OAuth install through Bolt's installer (Bolt's names). */
const OAuthModel = z.object({
  SLACK_CLIENT_ID: optionalString,
  SLACK_CLIENT_SECRET: optionalString,
  SLACK_STATE_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** The redirect URL registered in the app's settings, when it has several (else Slack uses its only one). */
  SLACK_REDIRECT_URI: urlString.optional(),
  /** Where the installer sends people to approve the install (tests and the sandbox point it at a fake). */
  SLACK_AUTHORIZATION_URL: urlString.optional(),
  SLACK_DISTRIBUTION: z.enum(['internal', 'marketplace', 'limited']).optional(),
  /** Days an uninstalled installation's rows are kept before they are purged (the audit trail excepted). */
  DATA_RETENTION_DAYS: numberIn(0, 36_500, 30),
});

/** Encryption of secrets at rest (installation tokens, Runbook API keys). */
const SecretsModel = z.object({
  SECRETS_ENCRYPTION_KEY: optionalString,
  SECRETS_ENCRYPTION_KEY_PREVIOUS: optionalString,
});

const AUDIT_RETENTION_RULE =
  'must be a whole number of days from 1 to 36500 (leave it unset to keep the audit trail until you prune it)';

const StoreModel = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATA_DIR: z.string().optional().default('./data'),
  /** Days audit entries are kept, of every installation alike; unset → kept until the operator prunes them. */
  AUDIT_RETENTION_DAYS: z.coerce
    .number({ error: AUDIT_RETENTION_RULE })
    .int({ error: AUDIT_RETENTION_RULE })
    .min(1, { error: AUDIT_RETENTION_RULE })
    .max(36_500, { error: AUDIT_RETENTION_RULE })
    .optional(),
  /** Postgres schema (search_path) to use; several deployments or test runs can share one database. */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lowercase SQL identifier')
    .optional(),
});

const AccessModel = z.object({
  POLICY_FILE: optionalString,
  APPROVALS_CHANNEL: z
    .string()
    .regex(/^[CG][A-Z0-9]+$/, 'must be a channel id like C012ABC (not a #name)')
    .optional(),
  APPROVAL_TTL_MINUTES: numberIn(1, 60 * 24 * 14, 60),
  RUN_RATE_LIMIT_PER_MINUTE: intIn(1, 10_000, 10),
});

const WatchModel = z.object({
  WATCH_REQUESTS_PER_SECOND: numberIn(0.1, 10_000, 20),
  WATCH_GLOBAL_REQUESTS_PER_SECOND: numberIn(0.1, 1_000_000, 500),
  WATCH_CONCURRENCY: intIn(1, 1_000, 8),
  WATCH_STALE_AFTER_MINUTES: numberIn(1, 60 * 24 * 30, 24 * 60),
  // Tuning knobs of the watcher; the defaults suit production, tests shrink them.
  WATCH_FIRST_CHECK_MS: intIn(10, 600_000, 2_000),
  WATCH_MAX_CHECK_MS: intIn(10, 3_600_000, 60_000),
  WATCH_TICK_MS: intIn(5, 60_000, 250),
  WATCH_LEASE_MS: intIn(500, 3_600_000, 30_000),
  WATCH_UNPOSTED_GRACE_MS: intIn(0, 3_600_000, 15_000),
  WATCH_SLACK_POST_INTERVAL_MS: intIn(0, 60_000, 1_000),
  WATCH_SLACK_UPDATE_INTERVAL_MS: intIn(0, 60_000, 1_000),
  WATCH_DIGEST_THRESHOLD: intIn(1, 1_000, 3),
  // Subscription discovery: how often the execution history is scanned for subscribed channels.
  SUBSCRIPTIONS_POLL_SECONDS: numberIn(0.01, 3_600, 15),
});

export interface RunbookProxy {
  id: string;
  name: string;
}

/** Every environment variable the bot reads (deployment files are checked against this list). */
export const CONFIG_VARIABLES: readonly string[] = [
  LogModel,
  ObserveModel,
  ApiModel,
  ProxyModel,
  SlackModel,
  OAuthModel,
  SecretsModel,
  StoreModel,
  AccessModel,
  WatchModel,
].flatMap((model) => Object.keys(model.shape));

export interface Config {
  log: { level: z.output<typeof LogModel>['LOG_LEVEL']; format: 'json' | 'pretty' | null };
  observe: {
    /** null → /metrics is served on the public port. */
    metricsPort: number | null;
    /** Tracing: null → off. */
    tracing: { endpoint: string; serviceName: string } | null;
  };
  api: {
    /**
     * null → start the built-in emulator in-process. Many workspaces: RUNBOOK_API_URL, else the first of
     * RUNBOOK_API_URLS (the emulator starts only when the operator gave no address at all).
     */
    url: string | null;
    /**
     * Many workspaces: the addresses a workspace may connect its API key to (RUNBOOK_API_URLS); empty →
     * only `url` (or the built-in emulator). With more than one, the Connect form asks which.
     */
    allowedUrls: string[];
    /**
     * Many workspaces: the deployment holds no key of its own (each installation brings one), so
     * RUNBOOK_API_KEY is not required and /readyz checks the addresses without a key.
     */
    keyless: boolean;
    apiKey: string;
    timeoutMs: number;
    maxRetries: number;
    outputEncoding: 'base64' | 'plain';
    /** Also send run values as `inputs` (for services that honour that name). */
    sendInputsField: boolean;
    /** Most bytes of one response kept in memory; a longer output keeps its tail. */
    maxBodyBytes: number;
  };
  /** Settings of the embedded emulator (`filterMode`: what its lists do with `filter`); null when an API address is configured. */
  emulator: { port: number; filterMode: 'apply' | 'ignore' | 'plain-terms' | 'reject' } | null;
  proxies: { list: RunbookProxy[]; defaultId: string | null };
  slack: {
    mode: 'socket' | 'http' | 'sandbox';
    botToken: string | null;
    appToken: string | null;
    signingSecret: string | null;
    /** Base of the Slack Web API, ending in '/'. */
    apiUrl: string;
    /**
     * SLACK_DISTRIBUTION: 'limited' (a commercially distributed app not on the Marketplace) reads Slack
     * back under its conversations.history / replies limit (slack/kit/history-limit.ts). Default:
     * limited in many-workspace mode, internal otherwise.
     */
    historyLimited: boolean;
    port: number;
    /**
     * Many-workspace mode (SLACK_CLIENT_ID set): installs through Bolt's OAuth installer at
     * /slack/install and /slack/oauth_redirect on PORT (in Socket Mode too: SLACK_APP_TOKEN), tokens in
     * the store. null → one workspace (or the sandbox).
     */
    oauth: {
      clientId: string;
      clientSecret: string;
      stateSecret: string;
      redirectUri: string | null;
      authorizationUrl: string | null;
      /** DATA_RETENTION_DAYS: an uninstalled installation's rows are purged this long after (tenants/retention.ts). */
      dataRetentionDays: number;
    } | null;
  };
  /** Keys that seal secrets at rest; null when SECRETS_ENCRYPTION_KEY is unset (required with oauth). */
  secrets: { key: Buffer; previousKey: Buffer | null } | null;
  /** `dataRetentionDays`: DATA_RETENTION_DAYS for the many-workspace sandbox, whose OAuth settings it makes up. */
  sandbox: { port: number; manyWorkspaces: boolean; dataRetentionDays: number } | null;
  store: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema?: string };
  /** AUDIT_RETENTION_DAYS: entries older are deleted hourly (tenants/retention.ts); null → kept forever. */
  audit: { retentionDays: number | null };
  watch: {
    requestsPerSecond: number;
    /** Many workspaces: the deployment's ceiling over every tenant's budget. */
    globalRequestsPerSecond: number;
    concurrency: number;
    staleAfterMs: number;
    firstCheckMs: number;
    maxCheckMs: number;
    tickMs: number;
    leaseMs: number;
    unpostedGraceMs: number;
    slackPostIntervalMs: number;
    slackUpdateIntervalMs: number;
    digestThreshold: number;
    /** Period of the subscription scan (ms). */
    subscriptionsPollMs: number;
  };
  access: {
    /** null → the built-in default policy. */
    policyFile: string | null;
    /** null → requests go to the channel the result goes to. */
    approvalsChannel: string | null;
    approvalTtlMs: number;
    runsPerMinute: number;
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** `id` or `id=Name`, comma-separated. */
export function parseProxies(value: string | undefined): RunbookProxy[] {
  if (!value) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq === -1) return { id: part, name: part };
      const id = part.slice(0, eq).trim();
      const name = part.slice(eq + 1).trim();
      return { id, name: name || id };
    })
    .filter((p) => p.id.length > 0);
}

export function loadConfig(rawEnv: Env): Config {
  // Empty strings count as unset.
  const env: Env = {};
  for (const [key, value] of Object.entries(rawEnv)) {
    if (value !== undefined && value.trim() !== '') env[key] = value.trim();
  }

  const problems: string[] = [];
  const parse = <T extends z.ZodType>(model: T): z.output<T> | null => {
    const result = model.safeParse(env);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      // Never echo the value: it may be a secret.
      problems.push(`${key}: ${issue.message}`);
    }
    return null;
  };

  const log = parse(LogModel);
  const observe = parse(ObserveModel);
  const api = parse(ApiModel);
  const proxy = parse(ProxyModel);
  const slack = parse(SlackModel);
  const oauth = parse(OAuthModel);
  const secrets = parse(SecretsModel);
  const store = parse(StoreModel);
  const watch = parse(WatchModel);
  const access = parse(AccessModel);

  let mode: Config['slack']['mode'] = 'sandbox';
  const manyWorkspaces = Boolean(oauth?.SLACK_CLIENT_ID);
  // Many workspaces: each workspace brings its own key (App Home's Connect); the deployment has none.
  if (api?.RUNBOOK_API_URL && !api.RUNBOOK_API_KEY && !manyWorkspaces) {
    problems.push('RUNBOOK_API_KEY: required when RUNBOOK_API_URL is set');
  }
  if (slack && oauth && manyWorkspaces) {
    // Many workspaces: each installation's token comes from the store. Requests over Socket Mode when
    // SLACK_APP_TOKEN is set (one app-level token serves every installation), else over HTTP.
    mode = slack.SLACK_APP_TOKEN ? 'socket' : 'http';
    if (!oauth.SLACK_CLIENT_SECRET) problems.push('SLACK_CLIENT_SECRET: required when SLACK_CLIENT_ID is set');
    if (!oauth.SLACK_STATE_SECRET) {
      problems.push(
        'SLACK_STATE_SECRET: required when SLACK_CLIENT_ID is set (any random text of 16+ characters, e.g. `openssl rand -hex 32`)',
      );
    }
    if (mode === 'http' && !slack.SLACK_SIGNING_SECRET) {
      problems.push(
        'SLACK_SIGNING_SECRET: required when SLACK_CLIENT_ID is set (HTTP mode), unless SLACK_APP_TOKEN is set for Socket Mode',
      );
    }
    if (slack.SLACK_BOT_TOKEN) {
      problems.push(
        'SLACK_BOT_TOKEN: leave it unset when SLACK_CLIENT_ID is set (many workspaces: each installation has its own token)',
      );
    }
    if (!secrets?.SECRETS_ENCRYPTION_KEY) {
      problems.push(
        `SECRETS_ENCRYPTION_KEY: required when SLACK_CLIENT_ID is set, to encrypt each workspace's tokens at rest: ${KEY_HOWTO}`,
      );
    }
  } else if (slack && oauth && (oauth.SLACK_CLIENT_SECRET || oauth.SLACK_STATE_SECRET)) {
    problems.push('SLACK_CLIENT_ID: required when SLACK_CLIENT_SECRET or SLACK_STATE_SECRET is set');
  } else if (slack) {
    const { SLACK_BOT_TOKEN: bot, SLACK_APP_TOKEN: app, SLACK_SIGNING_SECRET: secret } = slack;
    if (bot && app) mode = 'socket';
    else if (bot && secret) mode = 'http';
    else if (bot)
      problems.push('SLACK_BOT_TOKEN: set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) too');
    else if (app || secret)
      problems.push('SLACK_BOT_TOKEN: required when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set');
  }

  let secretKeys: Config['secrets'] = null;
  if (secrets?.SECRETS_ENCRYPTION_KEY) {
    const key = parseSecretKey(secrets.SECRETS_ENCRYPTION_KEY);
    const previousKey = secrets.SECRETS_ENCRYPTION_KEY_PREVIOUS
      ? parseSecretKey(secrets.SECRETS_ENCRYPTION_KEY_PREVIOUS)
      : null;
    if (!key) problems.push(`SECRETS_ENCRYPTION_KEY: must be 32 bytes as base64 or 64 hex digits: ${KEY_HOWTO}`);
    if (secrets.SECRETS_ENCRYPTION_KEY_PREVIOUS && !previousKey) {
      problems.push(
        `SECRETS_ENCRYPTION_KEY_PREVIOUS: must be 32 bytes as base64 or 64 hex digits (the key used before)`,
      );
    }
    if (key) secretKeys = { key, previousKey };
  } else if (secrets?.SECRETS_ENCRYPTION_KEY_PREVIOUS) {
    problems.push('SECRETS_ENCRYPTION_KEY: required when SECRETS_ENCRYPTION_KEY_PREVIOUS is set (the new key)');
  }

  if (
    problems.length > 0 ||
    !log ||
    !observe ||
    !api ||
    !proxy ||
    !slack ||
    !oauth ||
    !secrets ||
    !store ||
    !watch ||
    !access
  ) {
    throw new ConfigError(problems);
  }

  const proxies = parseProxies(proxy.RUNBOOK_PROXIES);
  const defaultId = proxy.RUNBOOK_DEFAULT_PROXY_ID ?? proxies[0]?.id ?? null;
  if (defaultId && !proxies.some((p) => p.id === defaultId)) proxies.unshift({ id: defaultId, name: defaultId });

  const apiUrl = slack.SLACK_API_URL ?? 'https://slack.com/api/';
  // Many workspaces with API addresses from the operator: those, and no built-in emulator.
  const runbookApiUrl = api.RUNBOOK_API_URL ?? (manyWorkspaces ? api.RUNBOOK_API_URLS[0] : undefined) ?? null;
  return {
    log: { level: log.LOG_LEVEL, format: log.LOG_FORMAT ?? null },
    observe: {
      metricsPort: observe.METRICS_PORT ?? null,
      tracing: observe.OTEL_EXPORTER_OTLP_ENDPOINT
        ? { endpoint: observe.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: observe.OTEL_SERVICE_NAME }
        : null,
    },
    api: {
      url: runbookApiUrl,
      allowedUrls: api.RUNBOOK_API_URLS,
      keyless: manyWorkspaces,
      apiKey: api.RUNBOOK_API_KEY ?? EMULATOR_DEFAULT_API_KEY,
      timeoutMs: api.RUNBOOK_API_TIMEOUT_MS,
      maxRetries: api.RUNBOOK_API_MAX_RETRIES,
      outputEncoding: api.RUNBOOK_OUTPUT_ENCODING,
      sendInputsField: api.RUNBOOK_SEND_INPUTS_FIELD,
      maxBodyBytes: api.RUNBOOK_API_MAX_BODY_BYTES,
    },
    emulator: runbookApiUrl ? null : { port: api.EMULATOR_PORT, filterMode: api.EMULATOR_FILTER_MODE },
    proxies: { list: proxies, defaultId },
    slack: {
      mode,
      botToken: slack.SLACK_BOT_TOKEN ?? null,
      appToken: slack.SLACK_APP_TOKEN ?? null,
      signingSecret: slack.SLACK_SIGNING_SECRET ?? null,
      apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`,
      historyLimited: (oauth.SLACK_DISTRIBUTION ?? (manyWorkspaces ? 'limited' : 'internal')) === 'limited',
      port: slack.PORT,
      oauth: manyWorkspaces
        ? {
            clientId: oauth.SLACK_CLIENT_ID!,
            clientSecret: oauth.SLACK_CLIENT_SECRET!,
            stateSecret: oauth.SLACK_STATE_SECRET!,
            redirectUri: oauth.SLACK_REDIRECT_URI ?? null,
            authorizationUrl: oauth.SLACK_AUTHORIZATION_URL ?? null,
            dataRetentionDays: oauth.DATA_RETENTION_DAYS,
          }
        : null,
    },
    secrets: secretKeys,
    sandbox:
      mode === 'sandbox'
        ? {
            port: slack.SANDBOX_PORT,
            manyWorkspaces: slack.SANDBOX_MANY_WORKSPACES,
            dataRetentionDays: oauth.DATA_RETENTION_DAYS,
          }
        : null,
    store: store.DATABASE_URL
      ? {
          kind: 'postgres',
          url: store.DATABASE_URL,
          ...(store.DATABASE_SCHEMA ? { schema: store.DATABASE_SCHEMA } : {}),
        }
      : { kind: 'sqlite', path: path.join(store.DATA_DIR, 'runbook-bot.sqlite') },
    audit: { retentionDays: store.AUDIT_RETENTION_DAYS ?? null },
    watch: {
      requestsPerSecond: watch.WATCH_REQUESTS_PER_SECOND,
      globalRequestsPerSecond: watch.WATCH_GLOBAL_REQUESTS_PER_SECOND,
      concurrency: watch.WATCH_CONCURRENCY,
      staleAfterMs: Math.round(watch.WATCH_STALE_AFTER_MINUTES * 60_000),
      firstCheckMs: watch.WATCH_FIRST_CHECK_MS,
      maxCheckMs: watch.WATCH_MAX_CHECK_MS,
      tickMs: watch.WATCH_TICK_MS,
      leaseMs: watch.WATCH_LEASE_MS,
      unpostedGraceMs: watch.WATCH_UNPOSTED_GRACE_MS,
      slackPostIntervalMs: watch.WATCH_SLACK_POST_INTERVAL_MS,
      slackUpdateIntervalMs: watch.WATCH_SLACK_UPDATE_INTERVAL_MS,
      digestThreshold: watch.WATCH_DIGEST_THRESHOLD,
      subscriptionsPollMs: Math.round(watch.SUBSCRIPTIONS_POLL_SECONDS * 1000),
    },
    access: {
      policyFile: access.POLICY_FILE ?? null,
      approvalsChannel: access.APPROVALS_CHANNEL ?? null,
      approvalTtlMs: Math.round(access.APPROVAL_TTL_MINUTES * 60_000),
      runsPerMinute: access.RUN_RATE_LIMIT_PER_MINUTE,
    },
  };
}
