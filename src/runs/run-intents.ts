// Intent before the run call. A run is written to the store (who, which runbook, a hash of the params,
// where the result goes) before POST …/run and settled when its answer is recorded. A process killed
// while the call is answered leaves the intent open; the next start (and every minute after, on any
// replica) looks for its execution in the executions list — same runbook, same executor, same params,
// started around the intent's time — and reports and audits what it finds: the watch is stored, so
// the result card and the reply go out as for any run. An intent with no execution after the window
// is audited as lost. See README "Hardening" for the window that remains.
//
// The runbook's name goes to the list as a filter hint only (src/api/filter-hint.ts): whatever the
// server does with it, the candidates are re-checked here, and where it did not narrow the list a
// bounded number of pages is read (within the watcher's request budget when one is given).
//
// The hash leaves secret values out (`intentParamsHash`: the runbook's schema, or credential-like key
// names, decide as everywhere): an unsalted hash of params whose other values are on the card would let
// whoever reads the store try passwords against it offline. The execution's inputs are hashed the same
// way when they are compared.
import { createHash } from 'node:crypto';
import { filterHintsFor, listMatching, workflowNameTerm } from '../api/filter-hint.ts';
import type { Execution } from '../api/schemas.ts';
import { type FormSpec, parseInputSchema } from '../forms/input-schema.ts';
import { stripSecrets } from '../forms/secrets.ts';
import type { RunIntent } from '../store/store.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { RunsDeps } from './deps.ts';
import type { StartedRun } from './run-tracker.ts';

/** How long after its intent an execution may appear in the list (the API's clock and queues). */
export const INTENT_WINDOW_MS = 10 * 60_000;
/** Executions created this long before an intent still count (clock skew between bot and API). */
const SKEW_MS = 60_000;
/** Pages read at most per runbook and pass (the first use's check of the filter included). */
export const INTENT_SEARCH_PAGES = 5;

/** Spends API requests (the watcher's budget); the default calls straight away. */
export interface RequestSpender {
  run<T>(call: () => Promise<T>): Promise<T>;
}
const UNBUDGETED: RequestSpender = { run: (call) => call() };

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** sha256 of the params as canonical JSON (key order does not matter). */
export function paramsHash(params: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(params)))
    .digest('hex');
}

/** What an intent keeps of its params: the hash of them without their secret values. */
export function intentParamsHash(spec: FormSpec, params: Record<string, unknown>): string {
  return paramsHash(stripSecrets(spec, params));
}

function inputsHash(inputs: string, spec: FormSpec): string | null {
  if (inputs.trim() === '') return paramsHash({});
  try {
    const parsed: unknown = JSON.parse(inputs);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? intentParamsHash(spec, parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Whether an execution is the one an intent's run call started (`spec`: its runbook's input schema). */
export function matchesIntent(intent: RunIntent, e: Execution, spec: FormSpec): boolean {
  if (e.workflowName.trim().toLowerCase() !== intent.runbookName.trim().toLowerCase()) return false;
  const created = Date.parse(e.createTime ?? e.startTime ?? '');
  if (!Number.isFinite(created)) return false;
  if (created < intent.createdAt - SKEW_MS || created > intent.createdAt + INTENT_WINDOW_MS) return false;
  if (intent.userEmail && e.executor.trim().toLowerCase() !== intent.userEmail.trim().toLowerCase()) return false;
  return inputsHash(e.inputs, spec) === intent.paramsHash;
}

interface Candidates {
  executions: Execution[];
  /** Executions read from pages the API did not narrow, when the search stopped at its bound. */
  searched: number | null;
}

/** Recent executions of one runbook (by name, re-checked here), newest first. */
async function executionsOf(deps: RunsDeps, runbookName: string, spender: RequestSpender): Promise<Candidates> {
  const api = deps.api.executions;
  const name = runbookName.trim().toLowerCase();
  const found = await listMatching({
    list: (page) => spender.run(() => api.list({ ...page, orderBy: 'descending' })),
    filter: workflowNameTerm(runbookName),
    matches: (e) => e.workflowName.trim().toLowerCase() === name,
    key: (e) => e.id,
    want: Number.POSITIVE_INFINITY,
    maxPages: INTENT_SEARCH_PAGES,
    hints: filterHintsFor(api),
  });
  return { executions: found.items, searched: found.cut ? found.rowsRead : null };
}

export interface ReconcileReport {
  reconciled: Array<{ intentId: string; executionIds: string[] }>;
  lost: string[];
  /** Still open: not old enough to call lost, or the API could not be asked. */
  pending: string[];
}

/**
 * Settles open intents older than `graceMs` (a run call still in flight on some replica is younger):
 * found executions are adopted as runs (watch stored, audited), none after the window → lost (audited).
 */
export async function reconcileIntents(
  deps: RunsDeps,
  options: {
    graceMs: number;
    /** Shows a found run where its result goes (the Slack layer posts its running card). */
    announce?: (run: StartedRun) => Promise<void>;
    /** The request budget the executions list is read within (the watcher's). */
    budget?: RequestSpender;
  },
): Promise<ReconcileReport> {
  const now = deps.now();
  const report: ReconcileReport = { reconciled: [], lost: [], pending: [] };
  // Only the intents of the installation in scope: `deps.api` is its Runbook API, the only one that can
  // say what became of them (many workspaces: called once per installation, in its scope).
  const installationId = installationKey();
  const open = await deps.access.store.intents.listOpen(now - options.graceMs, 50, installationId);
  // One search per runbook per pass, however many of its runs are unsettled.
  const searches = new Map<string, Promise<Candidates>>();
  const candidatesOf = (runbookName: string) => {
    const key = runbookName.trim().toLowerCase();
    let search = searches.get(key);
    if (!search) {
      search = executionsOf(deps, runbookName, options.budget ?? UNBUDGETED);
      searches.set(key, search);
    }
    return search;
  };
  for (const intent of open) {
    let executions: Execution[];
    let searched: number | null;
    try {
      const candidates = await candidatesOf(intent.runbookName);
      const spec = parseInputSchema((await deps.catalog.get(intent.runbookId))?.inputSchema ?? '');
      executions = candidates.executions.filter((e) => matchesIntent(intent, e, spec));
      searched = candidates.searched;
    } catch (err) {
      deps.logger.warn({ err, intentId: intent.id }, 'could not look for the execution of an unsettled run');
      report.pending.push(intent.id);
      continue;
    }
    // The entry point is the record's last part, as for a run whose answer came (unknown for an intent
    // an older release recorded).
    const audit = (outcome: 'ok' | 'error', detail: string) =>
      deps.access.audit.record({
        userId: intent.userId,
        teamId: intent.teamId,
        channel: intent.channel,
        action: 'run.start',
        target: `${intent.runbookName} (${intent.runbookId})`,
        outcome,
        detail: intent.via ? `${detail}; via ${intent.via}` : detail,
        tid: null,
      });
    if (executions.length > 0) {
      const ids = executions.map((e) => e.id);
      if (!(await deps.access.store.intents.settle(intent.id, 'reconciled', ids, deps.now()))) continue;
      const unwatched: string[] = [];
      for (const id of ids) if (!(await deps.access.store.watches.get(id, installationId))) unwatched.push(id);
      if (unwatched.length > 0) {
        let inputs: Record<string, unknown> = {};
        try {
          inputs = JSON.parse(intent.inputsSummary) as Record<string, unknown>;
        } catch {
          // masked inputs only cost the card's inputs section
        }
        await audit(
          'ok',
          `executions ${unwatched.join(', ')}; proxy ${intent.proxyId}; inputs ${intent.inputsSummary}; found after a restart (the answer to the run call was not recorded)`,
        );
        const run: StartedRun = {
          runbookId: intent.runbookId,
          runbookName: intent.runbookName,
          proxyId: intent.proxyId,
          startedBy: intent.userId,
          teamId: intent.teamId,
          inputs,
          executionIds: unwatched,
          channel: intent.channel,
        };
        await deps.runs.started(run);
        await options
          .announce?.(run)
          .catch((err: unknown) => deps.logger.warn({ err }, 'could not announce a found run'));
        deps.logger.warn({ intentId: intent.id, executionIds: unwatched }, 'found the execution of an unsettled run');
      }
      report.reconciled.push({ intentId: intent.id, executionIds: ids });
      continue;
    }
    if (now - intent.createdAt > INTENT_WINDOW_MS) {
      if (await deps.access.store.intents.settle(intent.id, 'lost', [], deps.now())) {
        const among = searched ? ` among the ${searched} most recent executions` : '';
        await audit(
          'error',
          `no execution found${among} for a run whose call was not answered; it most likely did not start`,
        );
        report.lost.push(intent.id);
      }
      continue;
    }
    report.pending.push(intent.id);
  }
  return report;
}
