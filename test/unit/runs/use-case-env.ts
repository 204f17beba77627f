// The use-case layer with nothing of Slack: the emulator behind the real API client, a SQLite store in a
// temp dir, the policy parsed from YAML, and a run tracker that records what it is told. Tests call the
// functions of src/runs/ directly with an Actor.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRunbookApi } from '../../../src/api/client.ts';
import { TimeoutError } from '../../../src/api/errors.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import type { Workflow } from '../../../src/api/schemas.ts';
import { ProxyDirectory } from '../../../src/catalog/proxy-directory.ts';
import { RunbookCatalog } from '../../../src/catalog/runbook-catalog.ts';
import { ManualClock } from '../../../src/emulator/clock.ts';
import { type Emulator, startEmulator } from '../../../src/emulator/server.ts';
import { createLogger } from '../../../src/logger.ts';
import { AuditLog } from '../../../src/policy/audit-log.ts';
import { parsePolicy } from '../../../src/policy/load-policy.ts';
import { RunRateLimit } from '../../../src/policy/run-rate-limit.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import type { AdoptedRun, RunTracker, StartedRun } from '../../../src/runs/run-tracker.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { AuditEntry, Store } from '../../../src/store/store.ts';

/** The emulator logs a request when its response has finished: let that happen before reading the log. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

export const API_KEY = 'use-case-key-0123456789';

/** A run call that reaches the API (the execution starts) but whose answer never comes back. */
export function answerLost(api: RunbookApi): RunbookApi['workflows']['run'] {
  return async (id, params, call) => {
    await api.workflows.run(id, params, call);
    throw new TimeoutError({
      tid: 't',
      method: 'POST',
      path: '/v1alpha1/workflows/x/run',
      message: 'no answer',
      timeoutMs: 1,
    });
  };
}

export class RecordingTracker implements RunTracker {
  readonly started_: StartedRun[] = [];
  readonly adopted: AdoptedRun[] = [];
  async started(run: StartedRun): Promise<void> {
    this.started_.push(run);
  }
  async posted(): Promise<void> {}
  async claimMessage(): Promise<boolean> {
    return true;
  }
  async releaseMessage(): Promise<void> {}
  async adopt(run: AdoptedRun): Promise<boolean> {
    this.adopted.push(run);
    return true;
  }
}

export interface UseCaseEnv {
  deps: RunsDeps;
  emulator: Emulator;
  api: RunbookApi;
  store: Store;
  tracker: RecordingTracker;
  runbook(name: string): Promise<Workflow>;
  /** Requests that change something (anything but GET) since `mark()`. */
  mutations(): Promise<string[]>;
  mark(): Promise<void>;
  /** Audit entries, newest first. */
  audit(n?: number): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

export async function startUseCaseEnv(policyYaml: string): Promise<UseCaseEnv> {
  const emulator = await startEmulator({
    port: 0,
    apiKey: API_KEY,
    clock: new ManualClock(Date.parse('2026-11-21T08:00:00Z')),
  });
  const api = createRunbookApi({ baseUrl: emulator.url, apiKey: API_KEY, maxRetries: 0 });
  const store = await openStore({
    kind: 'sqlite',
    path: path.join(mkdtempSync(path.join(tmpdir(), 'runs-')), 'db.sqlite'),
  });
  const logger = createLogger({ level: 'silent' });
  const catalog = new RunbookCatalog({ api });
  const tracker = new RecordingTracker();
  const deps: RunsDeps = {
    api,
    catalog,
    proxies: new ProxyDirectory({ api, configured: [{ id: 'proxy-dev', name: 'Dev proxy' }], defaultId: 'proxy-dev' }),
    runs: tracker,
    access: {
      policy: parsePolicy(policyYaml, 'policy.yaml'),
      audit: new AuditLog(store, logger),
      runLimit: new RunRateLimit({ perMinute: 1000, store: store.runLimits }),
      store,
      approvalsChannel: 'C0APPROVALS',
      approvalTtlMs: 60 * 60_000,
    },
    logger,
    now: Date.now,
    interactiveTimeoutMs: 5_000,
  };
  let since = 0;
  const log = () => emulator.state.requests.log;
  return {
    deps,
    emulator,
    api,
    store,
    tracker,
    async runbook(name) {
      const found = (await catalog.all()).find((r) => r.name === name);
      if (!found) throw new Error(`no runbook ${name}`);
      return found;
    },
    async mark() {
      await settle();
      since = emulator.state.requests.total;
    },
    async mutations() {
      await settle();
      const count = emulator.state.requests.total - since;
      const fresh = count === 0 ? [] : log().slice(-count);
      return fresh.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.route}`);
    },
    audit: (n = 20) => store.audit.recent(n),
    async close() {
      await api.close();
      await store.close();
      await emulator.close();
    },
  };
}
