// Change freezes (the windows: src/policy/freezes.ts). Inside a window the gate refuses covered runs with
// the window's name and end in the person's zone, audited like every refusal — unless the person holds a
// break-glass pass: one run of one runbook, granted by an approver to themselves with a reason
// (`breakFreeze`), taken by compare-and-set when the run starts and audited with that reason. The
// schedules a window covers are paused at its start and resumed at its end by `applyFreezes` (every
// minute, one replica under a lease) through the same intent-first pause machinery (schedule-pauses.ts);
// a row it pauses names the window, so a schedule a person paused stays paused after the freeze.
import type { Schedule, Workflow } from '../api/schemas.ts';
import { windowState } from '../policy/freezes.ts';
import type { ActiveFreeze } from '../policy/policy.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import {
  type FreezeOptions,
  gate,
  placeOfActor,
  recordAction,
  recordDenial,
  runbookFacts,
  runScope,
  scheduleFreeze,
  subjectOf,
} from './gate.ts';
import type { Refusal } from './run.ts';
import { applyPause, restore } from './schedule-pause-write.ts';
import { visibilityFor } from './visibility.ts';

/** How long a break-glass pass may wait for its run. */
export const PASS_TTL_MS = 15 * 60_000;
/** The lease under which one replica pauses and resumes the schedules freezes cover. */
export const FREEZE_LEASE = 'schedule-freezes';

export type BreakResult = { kind: 'granted'; freeze: ActiveFreeze; expiresAt: number; runbook: Workflow } | Refusal;

/**
 * Break-glass: an approver lets themselves start one run of `runbook` inside the freeze that covers it
 * here, with a reason. Needs what the run needs (the gate's `open-run`) and to be allowed to break the
 * window (its `breakGlass` people, else the approvers); granted and refused alike are audited.
 */
export async function breakFreeze(deps: RunsDeps, actor: Actor, query: string, reason: string): Promise<BreakResult> {
  const resolution = await (await visibilityFor(deps, actor)).resolve(query, { action: 'freeze.break' });
  if (resolution.kind !== 'match') {
    const names = (resolution.kind === 'several' ? resolution.candidates : resolution.suggestions)
      .slice(0, 5)
      .map((w) => `"${w.name}"`);
    const hint = names.length
      ? ` ${resolution.kind === 'several' ? 'It could be' : 'Did you mean'} ${names.join(', ')}?`
      : '';
    return { kind: 'refused', reason: 'not-found', sentence: `Name exactly one runbook you may see.${hint}` };
  }
  const { runbook } = resolution;
  const facts = runbookFacts(deps, runbook);
  const target = `${runbook.name} (${runbook.id})`;
  const why = reason.trim();
  if (why.length < 3) {
    return { kind: 'refused', reason: 'invalid', sentence: 'Say why the freeze must be broken: --reason "…".' };
  }
  const verdict = await gate(deps, actor, { intent: 'view', runbook: facts, auditAction: 'freeze.break' });
  if (!verdict.allowed) return { kind: 'refused', reason: verdict.reason, sentence: verdict.sentence };
  const freeze = deps.access.policy.freezeAt(runScope(actor), facts, deps.now());
  if (!freeze) {
    return {
      kind: 'refused',
      reason: 'invalid',
      sentence: `No change freeze covers ${runbook.name} here now: run it as usual.`,
    };
  }
  const decision = deps.access.policy.mayBreakFreeze(subjectOf(actor, actor.channelId), facts, freeze);
  if (!decision.allowed) {
    await recordDenial(deps, actor, { action: 'freeze.break', target, sentence: decision.message });
    return { kind: 'refused', reason: 'denied', sentence: decision.message };
  }
  const expiresAt = Math.min(deps.now() + PASS_TTL_MS, freeze.end);
  await deps.access.store.freezePasses.grant(
    { userId: actor.userId, runbookId: runbook.id, freeze: freeze.name, reason: why.slice(0, 500), expiresAt },
    deps.now(),
    installationKey(),
  );
  await recordAction(deps, actor, 'freeze.break-glass', target, 'ok', `“${freeze.name}”: ${why.slice(0, 500)}`);
  return { kind: 'granted', freeze, expiresAt, runbook };
}

export interface FreezeListing {
  name: string;
  /** Now inside it: until when. */
  activeUntil: number | null;
  /** Its next start after now (null: none). */
  nextStart: number | null;
}

/**
 * Every window of the policy that may cover the actor's workspace, with its state now (`/runbook freezes`,
 * App Home): names and times, nothing else; a window naming only other teams is not shown.
 */
export function listFreezes(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  actor: Pick<Actor, 'teamId' | 'enterpriseId'>,
): FreezeListing[] {
  const now = deps.now();
  return deps.access.policy.freezesFor(placeOfActor(actor)).map((w) => {
    const state = windowState(w, now);
    return { name: w.name, activeUntil: state.inside ? state.end : null, nextStart: state.nextStart };
  });
}

/** Many workspaces: only the rows of the installation's own workspaces. */
async function ofInstallation<T extends { teamId: string | null }>(
  rows: T[],
  installation: ApplyFreezeOptions['installation'],
): Promise<T[]> {
  if (!installation) return rows;
  const mine = await Promise.all(rows.map((row) => installation.ofInstallation(row.teamId)));
  return rows.filter((_, i) => mine[i]);
}

/** What is said where a schedule posts when a freeze pauses or resumes it. */
export interface FreezeNotice {
  kind: 'paused' | 'resumed';
  freeze: string;
  /** Paused: when the freeze ends. */
  until: number | null;
  scheduleId: string;
  runbookName: string;
  cron: string;
  channel: string;
  /** The workspace the schedule was made in (many-workspace mode posts with its installation's token). */
  teamId?: string | null;
}

export interface ApplyFreezeOptions extends FreezeOptions {
  owner: string;
  leaseMs: number;
  /**
   * Many workspaces: one installation's pass, in its scope with its own Runbook API (`deps`). Only its
   * schedules are paused, only rows and subscriptions of its workspaces (`ofInstallation`) are touched; a
   * schedule nobody made through the bot is that installation's. Absent: the one workspace's.
   */
  installation?: { id: string; ofInstallation: (teamId: string | null) => Promise<boolean> };
  /** Says it where the schedule posts (made in, subscribed to its runbook); failures are logged, not retried. */
  announce?: (notice: FreezeNotice) => Promise<void>;
}

export interface FreezeReport {
  paused: string[];
  resumed: string[];
  failed: string[];
}

const PAGE_LIMIT = 20;

async function allSchedules(deps: RunsDeps): Promise<Schedule[]> {
  const out: Schedule[] = [];
  let pageToken = '';
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const res = await deps.api.schedules.list({ pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    out.push(...res.items);
    pageToken = res.nextPageToken;
    if (!pageToken) break;
  }
  return out;
}

/**
 * Pauses the schedules a window covers once it has started, and resumes the ones a window paused once it
 * has ended (or hands them to another window still covering them). Every replica calls it every minute;
 * the lease lets one act, and the pause rows' compare-and-set keeps a late second one from acting twice.
 */
export async function applyFreezes(deps: RunsDeps, options: ApplyFreezeOptions): Promise<FreezeReport> {
  const report: FreezeReport = { paused: [], resumed: [], failed: [] };
  const now = deps.now();
  const store = deps.access.store.schedulePauses;
  const { policy } = deps.access;
  const frozen = await ofInstallation(await store.listFrozen(500, installationKey()), options.installation);
  const anyActive = policy.freezes.some((w) => windowState(w, now).inside);
  if (!anyActive && frozen.length === 0) return report;
  if (!(await deps.access.store.coordination.holdLease(FREEZE_LEASE, options.owner, now + options.leaseMs, now))) {
    return report;
  }
  // Said where the schedule posts: the channel it was made in, and the channels subscribed to every result
  // of its runbook (by name, so its subscribers chose to see it there; not `all`, not failures only).
  const subscribed = options.announce
    ? await ofInstallation(await deps.access.store.subscriptions.listAll().catch(() => []), options.installation)
    : [];
  const tell = async (made: string | null, notice: Omit<FreezeNotice, 'channel'>, runbookId: string) => {
    if (!options.announce) return;
    const posts = subscribed.filter((s) => s.runbookId === runbookId && !s.failuresOnly).map((s) => s.channel);
    for (const channel of new Set([made, ...posts].filter((c): c is string => Boolean(c)))) {
      await options
        .announce({ ...notice, channel })
        .catch((err: unknown) => deps.logger.warn({ err }, 'could not say a freeze change'));
    }
  };
  // Ended: resume (or hand over to a window still covering it). In-flight rows are reconcilePauses' work.
  for (const row of frozen) {
    if (row.state !== 'paused') continue;
    const { freeze, channel } = await scheduleFreeze(deps, { id: row.scheduleId, ...row }, options);
    if (freeze?.name === row.freeze) continue;
    if (freeze) {
      await store.handOver(row.scheduleId, row.freeze, { freeze: freeze.name }, deps.now(), row.installationId);
      continue;
    }
    // The freeze acts, not a person: audited as the bot ('' is stored as no user).
    const who = { userId: '', teamId: row.teamId, channelId: null };
    const result = await restore(deps, who, row, `${row.cron}; the change freeze “${row.freeze}” ended`);
    if (result.kind === 'resumed') {
      report.resumed.push(row.scheduleId);
      const { scheduleId, runbookName, cron } = row;
      await tell(
        channel,
        {
          kind: 'resumed',
          freeze: row.freeze ?? '',
          until: null,
          scheduleId,
          runbookName,
          cron,
          teamId: who.teamId,
        },
        row.runbookId,
      );
    } else if (result.kind === 'failed') {
      report.failed.push(row.scheduleId);
      deps.logger.warn({ err: result.error, scheduleId: row.scheduleId }, 'could not resume a schedule after a freeze');
    }
  }
  if (!anyActive) return report;
  // Started: pause what a window covers and nobody has paused.
  const held = new Set((await store.list(10_000, installationKey())).map((p) => p.scheduleId));
  for (const schedule of await allSchedules(deps)) {
    if (held.has(schedule.id)) continue;
    const { freeze, channel } = await scheduleFreeze(deps, schedule, options);
    if (!freeze) continue;
    const owner = await deps.access.store.scheduleOwners.get(schedule.id, installationKey());
    const who = { userId: '', teamId: owner?.teamId ?? options.installation?.id ?? null, channelId: null };
    const result = await applyPause(deps, who, schedule, {
      resumeAt: null,
      freeze: freeze.name,
      action: 'schedule.pause',
      detail: `was ${schedule.schedule}; paused by the change freeze “${freeze.name}” until ${new Date(freeze.end).toISOString()}`,
    });
    if (result.kind === 'paused') {
      report.paused.push(schedule.id);
      const { id: scheduleId, runbookName, schedule: cron } = schedule;
      await tell(
        channel,
        {
          kind: 'paused',
          freeze: freeze.name,
          until: freeze.end,
          scheduleId,
          runbookName,
          cron,
          teamId: who.teamId,
        },
        schedule.runbookId,
      );
    } else if (result.kind === 'failed') {
      report.failed.push(schedule.id);
      deps.logger.warn({ err: result.error, scheduleId: schedule.id }, 'could not pause a schedule for a freeze');
    }
  }
  return report;
}
