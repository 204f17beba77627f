// Readiness: may this replica take traffic now? Each check answers within a deadline; a critical
// one failing makes the replica unready (the load balancer stops sending it Slack requests, the
// orchestrator does not restart it: that is liveness, /healthz). A non-critical one failing only
// marks the answer degraded: with the Runbook API down the bot still answers people, with an error
// that says so, which beats no answer at all.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Store } from '../store/store.ts';

export type CheckState = 'ok' | 'failing' | 'degraded';

export interface CheckResult {
  state: CheckState;
  /** Why it is not ok (never a secret: messages of errors only). */
  detail?: string;
  ms: number;
}

export interface ReadinessReport {
  /** true → HTTP 200 on /readyz, false → 503. */
  ready: boolean;
  status: 'ready' | 'degraded' | 'unready';
  checks: Record<string, CheckResult>;
}

export interface ReadinessCheck {
  name: string;
  /** A critical check that fails makes the replica unready; any other one only degrades it. */
  critical: boolean;
  /** Resolves when healthy; rejects (or times out) with the reason otherwise. */
  run(signal: AbortSignal): Promise<void>;
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
}

function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([work(controller.signal), deadline]).finally(() => clearTimeout(timer));
}

export function createReadiness(checks: ReadinessCheck[], options: { timeoutMs?: number } = {}): Readiness {
  const timeoutMs = options.timeoutMs ?? 2_000;
  return {
    async check() {
      const entries = await Promise.all(
        checks.map(async (c): Promise<[ReadinessCheck, CheckResult]> => {
          const started = performance.now();
          try {
            await withDeadline((signal) => c.run(signal), timeoutMs);
            return [c, { state: 'ok', ms: Math.round(performance.now() - started) }];
          } catch (err) {
            const detail = err instanceof Error ? err.message : String(err);
            const state: CheckState = c.critical ? 'failing' : 'degraded';
            return [c, { state, detail, ms: Math.round(performance.now() - started) }];
          }
        }),
      );
      const results = Object.fromEntries(entries.map(([c, r]) => [c.name, r]));
      const failing = entries.some(([, r]) => r.state === 'failing');
      const degraded = entries.some(([, r]) => r.state === 'degraded');
      return {
        ready: !failing,
        status: failing ? 'unready' : degraded ? 'degraded' : 'ready',
        checks: results,
      };
    },
  };
}

/** The store answers a primary-key read. */
export function storeCheck(store: Store): ReadinessCheck {
  return {
    name: 'store',
    critical: true,
    async run() {
      await store.cursors.get('readiness-probe');
    },
  };
}

/** Socket Mode only: the WebSocket to Slack is open (otherwise no request can reach this replica). */
export function slackConnectionCheck(isConnected: () => boolean): ReadinessCheck {
  return {
    name: 'slack',
    critical: true,
    async run() {
      if (!isConnected()) throw new Error('Socket Mode connection to Slack is not open');
    },
  };
}

/** The watcher's loop went round recently (a stuck loop leaves every live message hanging). */
export function watcherCheck(lastTickAt: () => number | null, maxAgeMs: number, now = Date.now): ReadinessCheck {
  return {
    name: 'watcher',
    critical: true,
    async run() {
      const last = lastTickAt();
      if (last === null) throw new Error('the watcher loop has not run yet');
      const age = now() - last;
      if (age > maxAgeMs) throw new Error(`the watcher loop last ran ${Math.round(age / 1000)} s ago`);
    },
  };
}

/**
 * The Runbook API answers a one-item listing. Not critical: the bot stays useful (it tells people the
 * service is down). The answer is kept for `cacheMs` so probes do not add load on the service.
 */
export function runbookApiCheck(
  api: RunbookApi,
  options: { cacheMs?: number; now?: () => number } = {},
): ReadinessCheck {
  const cacheMs = options.cacheMs ?? 15_000;
  const now = options.now ?? Date.now;
  let last: { at: number; error: Error | null } | null = null;
  return {
    name: 'runbookApi',
    critical: false,
    async run(signal) {
      if (!last || now() - last.at >= cacheMs) {
        try {
          await api.workflows.list({ pageSize: 1 }, { signal, timeoutMs: 1_500 });
          last = { at: now(), error: null };
        } catch (err) {
          last = { at: now(), error: err instanceof Error ? err : new Error(String(err)) };
        }
      }
      if (last.error) throw new Error(`Runbook API unreachable: ${last.error.message}`);
    },
  };
}

/**
 * Many workspaces: the deployment holds no API key (each installation brings its own), so the Runbook
 * API addresses the operator allows are checked for reachability only: a plain GET of each, without a
 * key, where any HTTP answer (401 and 404 included) counts as reachable and only no answer (refused,
 * timed out, DNS) degrades. Not critical, cached like runbookApiCheck; the detail names hosts only.
 */
export function apiAddressesCheck(
  urls: readonly string[],
  options: { cacheMs?: number; now?: () => number; fetch?: typeof fetch } = {},
): ReadinessCheck {
  const cacheMs = options.cacheMs ?? 15_000;
  const now = options.now ?? Date.now;
  const get = options.fetch ?? fetch;
  let last: { at: number; unreachable: string[] } | null = null;
  const host = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return 'an address';
    }
  };
  return {
    name: 'runbookApi',
    critical: false,
    async run(signal) {
      if (!last || now() - last.at >= cacheMs) {
        const answers = await Promise.all(
          urls.map(async (url) => {
            try {
              const res = await get(url, {
                method: 'GET',
                redirect: 'manual',
                signal: AbortSignal.any([signal, AbortSignal.timeout(1_500)]),
              });
              await res.body?.cancel().catch(() => {});
              return null;
            } catch {
              return host(url);
            }
          }),
        );
        last = { at: now(), unreachable: answers.filter((a): a is string => a !== null) };
      }
      if (last.unreachable.length > 0) {
        throw new Error(`Runbook API address unreachable: ${last.unreachable.join(', ')}`);
      }
    },
  };
}
