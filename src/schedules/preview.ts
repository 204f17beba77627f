// Everything the schedule form shows under the expression field, computed in one pure call.
import { cronWarnings, describeCron, formatRunTime, nextRuns, resolveTimeZone, validateCron } from './cron.ts';

export interface CronPreview {
  ok: boolean;
  error?: string;
  description?: string;
  warnings: string[];
  nextRunsGmt: string[];
  nextRunsLocal: string[];
  timeZone: string;
}

export function previewCron(expression: string, opts: { now: Date; timeZone?: string; count?: number }): CronPreview {
  const timeZone = resolveTimeZone(opts.timeZone);
  const check = validateCron(expression);
  if (!check.ok) return { ok: false, error: check.error, warnings: [], nextRunsGmt: [], nextRunsLocal: [], timeZone };
  const runs = nextRuns(check.expression, opts.count ?? 5, opts.now);
  return {
    ok: true,
    description: describeCron(check.expression),
    warnings: cronWarnings(check.expression),
    nextRunsGmt: runs.map((run) => formatRunTime(run, 'UTC')),
    nextRunsLocal: runs.map((run) => formatRunTime(run, timeZone)),
    timeZone,
  };
}
