// How a runbook's health reads wherever it shows: the outcome strip, the badge of the runbook list, the
// summary of `show` and App Home, how fresh it is and what it is based on, and a running card's ETA.
// Pure: the reports come from src/runs/health.ts (src/health/ computes them).
import type { Outcome, RunbookEta, RunbookHealth } from '../../health/runbook-health.ts';
import { ETA_RUNS } from '../../health/runbook-health.ts';
import { escapeMrkdwn, formatDuration, slackDate, truncate } from './mrkdwn.ts';

const STRIP: Record<Outcome, string> = {
  succeeded: ':large_green_square:',
  failed: ':large_red_square:',
  running: ':white_large_square:',
  unknown: ':grey_question:',
};

/** The last outcomes, oldest on the left and the latest on the right ('' when none). */
export function outcomeStrip(lastOutcomes: readonly Outcome[]): string {
  return [...lastOutcomes]
    .reverse()
    .map((o) => STRIP[o])
    .join('');
}

export function percentText(rate: number): string {
  const pct = rate * 100;
  return `${pct >= 99.5 || pct < 0.5 ? Math.round(pct) : pct.toFixed(pct >= 10 ? 0 : 1)}%`;
}

/** "about 40 s", "about 4 min", "about 1 h 20 min": a duration as people say it. */
export function aboutDuration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 60) return `about ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `about ${hours} h${rest ? ` ${rest} min` : ''}`;
}

/** "as of just now", "as of 2 min ago", "as of 3 h ago". */
export function freshness(fetchedAt: number, nowMs: number): string {
  const minutes = Math.floor(Math.max(0, nowMs - fetchedAt) / 60_000);
  if (minutes < 1) return 'as of just now';
  if (minutes < 60) return `as of ${minutes} min ago`;
  return `as of ${Math.floor(minutes / 60)} h ago`;
}

/** The day in the reader's own time zone (a date token; the GMT date where tokens are not shown). */
function dayText(ms: number): string {
  return slackDate(Math.floor(ms / 1000), new Date(ms).toISOString().slice(0, 10), '{date_short_pretty}');
}

/** What the numbers are based on, when that is less than the whole window ('' when it is the whole window). */
export function coverageNote(report: RunbookHealth, rowsRead?: number): string {
  const { coverage } = report;
  if (coverage.limitedBy === 'none') return '';
  const days = `${report.daysCovered} of ${report.windowDays} days, since ${dayText(coverage.coveredFrom)}`;
  if (coverage.limitedBy === 'runs') return `based on the latest ${report.runs} runs only (${days})`;
  const read = rowsRead ? `the latest ${rowsRead} executions read` : 'the executions read within the request bound';
  return `based on ${read} only (${days})`;
}

function healthEmoji(report: RunbookHealth): string {
  if (report.successRate === null) return ':white_large_square:';
  if (report.successRate >= 0.9) return ':large_green_square:';
  if (report.successRate >= 0.7) return ':large_yellow_square:';
  return ':large_red_square:';
}

/** The list's badge: success rate and runs over the window, e.g. ":large_green_square: 95% ok · 40 runs/30 d". */
export function healthBadge(report: RunbookHealth): string {
  const days = report.coverage.limitedBy === 'none' ? report.windowDays : report.daysCovered;
  if (report.runs === 0) return `:white_large_square: no runs in ${days} d`;
  const rate = report.successRate === null ? 'running' : `${percentText(report.successRate)} ok`;
  return `${healthEmoji(report)} ${rate} · ${report.runs} ${report.runs === 1 ? 'run' : 'runs'}/${days} d`;
}

/** "40 runs · 92% succeeded · median 4m 2s · p95 7m 30s" */
export function healthNumbers(report: RunbookHealth): string {
  if (report.runs === 0) return 'no runs';
  const parts = [`${report.runs} ${report.runs === 1 ? 'run' : 'runs'}`];
  if (report.successRate !== null) {
    parts.push(`${percentText(report.successRate)} succeeded (${report.failed} failed)`);
  }
  if (report.running > 0) parts.push(`${report.running} running`);
  if (report.medianMs !== null) parts.push(`median ${formatDuration(report.medianMs)}`);
  if (report.p95Ms !== null) parts.push(`p95 ${formatDuration(report.p95Ms)}`);
  return parts.join(' · ');
}

/** The most common failure reasons as mrkdwn bullet lines (escaped). */
export function reasonLines(report: RunbookHealth, max = 3, width = 200): string[] {
  return report.failureReasons.slice(0, max).map((r) => `• ${escapeMrkdwn(truncate(r.reason, width))} (${r.count}×)`);
}

/** A runbook's health in a few lines of mrkdwn: numbers, the strip, failure reasons, freshness and basis. */
export function healthSummary(report: RunbookHealth, fetchedAt: number, nowMs: number): string {
  const lines = [`*Health, last ${report.windowDays} days:* ${healthNumbers(report)}`];
  const strip = outcomeStrip(report.lastOutcomes);
  if (strip) lines.push(`Last ${report.lastOutcomes.length}: ${strip}`);
  const reasons = reasonLines(report, 2, 150);
  if (reasons.length) lines.push('Most common failures:', ...reasons);
  lines.push(`_${[freshness(fetchedAt, nowMs), coverageNote(report)].filter(Boolean).join(' · ')}_`);
  return lines.join('\n');
}

/** "usually takes about 4 min (median of the last 20 runs)" */
export function etaText(eta: RunbookEta): string {
  const of = eta.runs >= ETA_RUNS ? `the last ${ETA_RUNS} runs` : `the last ${eta.runs} runs`;
  return `usually takes ${aboutDuration(eta.medianMs)} (median of ${of})`;
}

/** "running longer than usual: 95% of recent runs finished within about 8 min" */
export function lateText(eta: RunbookEta): string {
  return `:warning: *running longer than usual*: 95% of recent runs finished within ${aboutDuration(eta.p95Ms ?? 0)}`;
}
