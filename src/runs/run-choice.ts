// Which proxy and which result channel a run gets, and whether a proxy may be used at all: decided here,
// once, for every entry point (the run and schedule forms, one-line runs and aliases, `--now`, the
// Workflow Builder step, channel defaults and saved aliases).
//
//   proxy:       what was typed (a line's or alias's --proxy, a retry's draft, the form's select)
//                → the channel's default proxy → the bot's default (RUNBOOK_DEFAULT_PROXY_ID, else the
//                runbook's own, else the first offered)
//   destination: what was typed (--to, the form's channel, the step's channel) → the thread it was
//                started from (a thread beats the default result channel) → the channel's default result
//                channel → the channel acted in
import type { Workflow } from '../api/schemas.ts';
import { notOfferedSentence } from '../catalog/proxy-directory.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { RunsDeps } from './deps.ts';

/** What a run started in a channel uses, and what of it came from the channel's defaults. */
export interface RunChoice {
  /** The proxy to preselect or use; null only when nothing at all is offered. */
  proxyId: string | null;
  /** The result channel chosen so far; null: the channel acted in (or the thread). */
  destination: string | null;
  /**
   * What the channel's defaults supplied (null where something else won), for the person to see, and who
   * saved them (a saved destination is judged against that person).
   */
  fromDefaults: { proxyId: string | null; resultChannel: string | null; savedBy: string | null };
}

export interface ChosenByPerson {
  proxyId?: string | null;
  destination?: string | null;
  /** Started from a thread: the card goes there, so the default result channel does not apply. */
  threadTs?: string | null;
}

/**
 * The one place that applies a channel's run defaults (`/runbook defaults`) and the bot's default proxy.
 * `runbook` null: only what the person and the channel chose (no bot default yet: the runbook picker).
 */
export async function chooseRun(
  deps: Pick<RunsDeps, 'access' | 'proxies'>,
  runbook: Pick<Workflow, 'proxyId'> | null,
  channelId: string | null,
  chosen: ChosenByPerson,
): Promise<RunChoice> {
  const defaults = channelId ? await deps.access.store.channelDefaults.get(channelId, installationKey()) : null;
  const proxyDefault = chosen.proxyId ? null : (defaults?.proxyId ?? null);
  const destinationDefault = chosen.destination || chosen.threadTs ? null : (defaults?.resultChannel ?? null);
  const proxyId = chosen.proxyId || proxyDefault || (runbook ? (await deps.proxies.choicesFor(runbook)).initial : null);
  return {
    proxyId,
    destination: chosen.destination || destinationDefault,
    fromDefaults: { proxyId: proxyDefault, resultChannel: destinationDefault, savedBy: defaults?.updatedBy ?? null },
  };
}

/**
 * The proxy rule: a proxy must be one the directory offers (when it offers any). `runbook` null: any
 * runbook (channel defaults).
 */
export async function isOfferedProxy(
  deps: Pick<RunsDeps, 'proxies'>,
  runbook: Pick<Workflow, 'proxyId'> | null,
  proxyId: string | null,
): Promise<boolean> {
  return (await proxyRefusal(deps, runbook, proxyId)) === null;
}

/**
 * The same rule as a sentence: null when the proxy may be used, else the refusal that lists the offered
 * ones (`prefix`: "The ", "Not saved: ").
 */
export async function proxyRefusal(
  deps: Pick<RunsDeps, 'proxies'>,
  runbook: Pick<Workflow, 'proxyId'> | null,
  proxyId: string | null,
  prefix = 'The ',
): Promise<string | null> {
  const { options } = await deps.proxies.choicesFor(runbook);
  if (proxyId && (options.length === 0 || options.some((p) => p.id === proxyId))) return null;
  return notOfferedSentence(proxyId, options, prefix);
}
