// Change freezes: windows declared in the policy file during which runs are refused and the schedules a
// window covers are paused. A window is fixed dates (start and end, read in its zone) or a cron
// expression read in its zone plus a duration (elapsed time, so a window that starts at 18:00 on both
// sides of a DST change still lasts its 63 hours). Pure: the caller passes `now`.
import { z } from 'zod';
import { offsetMinutes } from '../forms/time-zone.ts';
import { formatRunTime, validateCron } from '../schedules/cron.ts';
import { buildCron } from '../schedules/cron-builder.ts';
import { channelIds, groupIds, teamIds, userIds } from './ids.ts';

const MINUTE = 60_000;
const UNITS: Record<string, number> = { m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE, w: 7 * 24 * 60 * MINUTE };
/** The longest a window may last: a year. */
const MAX_DURATION_MS = 366 * UNITS.d!;

/** "63h", "90m", "1d12h", "2w": elapsed milliseconds, or null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+\s*[mhdw]\s*)+$/.test(trimmed)) return null;
  let ms = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)\s*([mhdw])/g)) ms += Number(n) * UNITS[unit!]!;
  return ms > 0 ? ms : null;
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at that instant, in ms; 0 for an unknown zone. */
function offsetMs(epochMs: number, zone: string): number {
  return (offsetMinutes(epochMs, zone) ?? 0) * MINUTE;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A date-time as written in the policy: with an offset or Z it is that instant; without one ("2026-12-24"
 * or "2026-12-24T18:00") it is that wall time in `zone`. A wall time a DST change skips is read with the
 * offset before the change (02:30 on a spring-forward night is 03:30). Null when it is not a date-time.
 */
export function instantOf(text: string, zone: string): number | null {
  const local = LOCAL.exec(text.trim());
  if (!local) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text.trim())) return null;
    const ms = Date.parse(text.trim());
    return Number.isNaN(ms) ? null : ms;
  }
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = local;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(wall);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23) return null;
  // Two passes: the offset at the guess, then at the corrected instant.
  const first = wall - offsetMs(wall, zone);
  return wall - offsetMs(first, zone);
}

/** A window as written in the policy file (the runbook selector is the policy's own, passed in). */
export function freezeWindowSchema<S extends z.ZodTypeAny>(runbookSelector: S) {
  return z
    .object({
      name: z.string().min(1).max(80),
      /** Fixed dates: ISO 8601 date-times (without an offset: wall time in `zone`). */
      start: z.string().optional(),
      end: z.string().optional(),
      /** Recurring: a five-field cron expression read in `zone`, and how long each window lasts ("63h"). */
      cron: z.string().optional(),
      duration: z.string().optional(),
      /** IANA time zone of the dates and the cron (default UTC). */
      zone: z.string().refine(isTimeZone, 'must be an IANA time zone like Europe/Berlin').optional(),
      users: userIds,
      groups: groupIds,
      channels: channelIds,
      /** Workspaces or Grid orgs the window covers (unset: every workspace). */
      teams: teamIds,
      runbooks: runbookSelector.optional(),
      /** Who may break the freeze for one run (default: the policy's approvers). */
      breakGlass: z.object({ users: userIds, groups: groupIds }).strict().optional(),
    })
    .strict()
    .superRefine((w, ctx) => {
      const zone = w.zone && isTimeZone(w.zone) ? w.zone : 'UTC';
      const fixed = w.start !== undefined || w.end !== undefined;
      const recurring = w.cron !== undefined || w.duration !== undefined;
      if (fixed === recurring) {
        ctx.addIssue({ code: 'custom', message: 'give either start and end, or cron and duration' });
        return;
      }
      if (fixed) {
        const start = w.start === undefined ? null : instantOf(w.start, zone);
        const end = w.end === undefined ? null : instantOf(w.end, zone);
        if (start === null)
          ctx.addIssue({ code: 'custom', path: ['start'], message: 'must be a date-time like 2026-12-24T18:00' });
        if (end === null)
          ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be a date-time like 2027-01-04T09:00' });
        if (start !== null && end !== null && end <= start) {
          ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
        }
        return;
      }
      const check = w.cron === undefined ? null : validateCron(w.cron);
      if (!check?.ok) {
        ctx.addIssue({ code: 'custom', path: ['cron'], message: check ? check.error : 'is required with duration' });
      }
      const ms = w.duration === undefined ? null : parseDuration(w.duration);
      if (ms === null || ms > MAX_DURATION_MS) {
        ctx.addIssue({
          code: 'custom',
          path: ['duration'],
          message: 'must be a duration like 63h, 90m or 1d12h (at most a year)',
        });
      }
    });
}

/** What window evaluation needs of a window (the parsed file's entry). */
export interface FreezeTimes {
  start?: string | undefined;
  end?: string | undefined;
  cron?: string | undefined;
  duration?: string | undefined;
  zone?: string | undefined;
}

export interface WindowState {
  /** Inside the window at `now`. */
  inside: boolean;
  /** Inside: when this occurrence began and ends (overlapping occurrences of a cron window merged). */
  start: number | null;
  end: number | null;
  /** The next occurrence that starts after `now` (null: none, a fixed window in the past or under way). */
  nextStart: number | null;
}

/** How many back-to-back occurrences are merged at most when a duration outlasts the cron's period. */
const MAX_CHAIN = 1000;

/** Whether `now` is inside the window, when it ends, and when it next starts. */
export function windowState(w: FreezeTimes, now: number): WindowState {
  const zone = w.zone && isTimeZone(w.zone) ? w.zone : 'UTC';
  if (w.cron === undefined) {
    const start = instantOf(w.start ?? '', zone);
    const end = instantOf(w.end ?? '', zone);
    if (start === null || end === null) return { inside: false, start: null, end: null, nextStart: null };
    const inside = start <= now && now < end;
    return { inside, start: inside ? start : null, end: inside ? end : null, nextStart: start > now ? start : null };
  }
  const duration = parseDuration(w.duration ?? '');
  if (duration === null || !validateCron(w.cron).ok) return { inside: false, start: null, end: null, nextStart: null };
  const cron = buildCron(w.cron, zone);
  // The earliest start whose window still covers now: the first firing after now - duration.
  const first = cron.nextRun(new Date(now - duration))?.getTime() ?? null;
  const nextAfterNow = cron.nextRun(new Date(now))?.getTime() ?? null;
  if (first === null || first > now) return { inside: false, start: null, end: null, nextStart: nextAfterNow };
  let end = first + duration;
  let next = nextAfterNow;
  for (let i = 0; next !== null && next < end && i < MAX_CHAIN; i++) {
    end = next + duration;
    next = cron.nextRun(new Date(next))?.getTime() ?? null;
  }
  return { inside: true, start: first, end, nextStart: next };
}

/** "Mon 22 Dec 09:00 CET": when a freeze ends, in the person's zone (UTC when unknown). */
export function freezeEnd(end: number, timeZone: string | null | undefined): string {
  return formatRunTime(new Date(end), timeZone ?? 'UTC');
}

/** The refusal of a run inside a freeze: the window's name, its end in the person's zone, the way out. */
export function freezeSentence(
  runbookName: string,
  freeze: { name: string; end: number },
  timeZone: string | null | undefined,
): string {
  return `${runbookName} cannot run now: the change freeze “${freeze.name}” is on until ${freezeEnd(freeze.end, timeZone)}. An approver can break it for one run with /runbook freezes break "${runbookName}" --reason "why".`;
}
