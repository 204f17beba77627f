// A button that makes something happen works once per person who may use it: the first click claims it in
// the store (so replicas agree), and a second click, a replayed payload or the same click delivered to
// another replica finds the claim and changes nothing. Which clicks are once in all and which once per
// person is decided here (ONCE); the Slack layer names the click and renders the answer.
import { installationKey } from '../tenants/tenant-scope.ts';
import type { RunsDeps } from './deps.ts';

/** The sentence for a click that was already acted on (who and when added where known). */
export const ALREADY_DONE = 'That was already done, so nothing more happened.';

/**
 * Every acting click and how often it works. `in-all`: once, whoever clicks (a confirmation, Delete,
 * Unsubscribe); `per-person`: once for each person (Approve and Reject: a quorum still needs the others).
 * The confirmations' buttons share one claim: after Run, neither Edit nor Cancel does anything.
 */
export const ONCE = {
  /** A schedule's Run now confirmation: its Run now and Cancel. */
  'run-now': 'in-all',
  /** A `--now` or alias confirmation: Run, Edit and Cancel. */
  confirmation: 'in-all',
  'schedule-delete': 'in-all',
  'schedule-pause': 'in-all',
  'schedule-skip': 'in-all',
  'schedule-resume': 'in-all',
  subscribe: 'in-all',
  /** Saving a schedule form: one submission (view, version and values), once; a replay saves nothing. */
  'schedule-save': 'in-all',
  /** Disconnect in App Home (many workspaces): one drawing of Home, once; a stale one never removes a newer key. */
  'api-disconnect': 'in-all',
  unsubscribe: 'in-all',
  approve: 'per-person',
  reject: 'per-person',
} as const;

export type OnceAction = keyof typeof ONCE;

export interface Click {
  action: OnceAction;
  /** What it acts on: a schedule, a draft, an approval request, a channel's subscription. */
  target: string;
  /** The posted message or button instance it was clicked in ('' when any copy is the same button). */
  where: string;
  /** Who clicked. */
  who: string;
  /** Keys earlier releases claimed for this click: a click one of them took counts as done here too. */
  legacy?: readonly string[];
}

export type ClickClaim =
  | {
      kind: 'first' /** Gives the click back when it changed nothing (refused), so it may be tried again. */;
      release(): Promise<void>;
    }
  | { kind: 'already' /** Who did it, when known. */; by: string | null; at: number | null };

/**
 * The claim's key. Many workspaces: the installation in scope leads it, so a click replayed from another
 * workspace (its own person, the same draft, request or schedule id) claims only its own installation's
 * click and never uses up the owner's (single workspace: no installation, the key as before). The keys of
 * earlier releases likewise.
 */
function scoped(prefix: string): string {
  const installation = installationKey();
  return installation ? `${prefix}${installation}:` : prefix;
}

function keyOf(click: Click): string {
  const base = `${scoped('click:')}${click.action}:${click.target}:${click.where}`;
  return ONCE[click.action] === 'per-person' ? `${base}:${click.who}` : base;
}

async function already(deps: Pick<RunsDeps, 'access'>, key: string): Promise<ClickClaim> {
  const holder = await deps.access.store.notifications.holder(key).catch(() => null);
  return { kind: 'already', by: holder?.by ?? null, at: holder?.at ?? null };
}

/** Claims one click: the first, across replicas, goes on; any other is told who did it and when. */
export async function claimClick(deps: Pick<RunsDeps, 'access' | 'now'>, click: Click): Promise<ClickClaim> {
  const { notifications } = deps.access.store;
  const key = keyOf(click);
  if (!(await notifications.claim(key, deps.now(), click.who))) return already(deps, key);
  // An old replica may have taken this click under its own key: then it is done, and stays claimed here.
  const taken: string[] = [key];
  for (const legacy of click.legacy ?? []) {
    const legacyKey = `${scoped('')}${legacy}`;
    if (!(await notifications.claim(legacyKey, deps.now(), click.who))) return already(deps, legacyKey);
    taken.push(legacyKey);
  }
  return {
    kind: 'first',
    release: async () => {
      for (const k of taken) await notifications.release(k);
    },
  };
}

/** Whether this person's click was already taken (nothing claimed): a form that would only repeat it is not opened. */
export async function clickTaken(deps: Pick<RunsDeps, 'access'>, click: Click): Promise<ClickClaim | null> {
  const key = keyOf(click);
  return (await deps.access.store.notifications.has(key)) ? already(deps, key) : null;
}
