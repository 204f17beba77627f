// Prometheus metrics of the watcher, registered on a Registry the caller owns (the lead mounts
// /metrics). Every method is safe to call when metrics are off (see NO_METRICS).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface WatchMetrics {
  setPending(count: number): void;
  checked(how: 'single' | 'bulk'): void;
  apiError(status: string): void;
  slackError(method: string, code: string): void;
  /** Seconds from the execution's end to its result card being up. */
  reported(seconds: number): void;
  finished(state: 'finished' | 'stale'): void;
  /** A result card went up: the execution's final status (or 'stale'). */
  result(status: string): void;
}

export const NO_METRICS: WatchMetrics = {
  setPending: () => {},
  checked: () => {},
  apiError: () => {},
  slackError: () => {},
  reported: () => {},
  finished: () => {},
  result: () => {},
};

export function createWatchMetrics(registry: Registry): WatchMetrics {
  const registers = [registry];
  const pending = new Gauge({ name: 'runbook_watch_pending', help: 'Active (unfinished) watches', registers });
  const checks = new Counter({
    name: 'runbook_watch_checks_total',
    help: 'Execution status checks, by how (single get or bulk listing page)',
    labelNames: ['how'],
    registers,
  });
  const apiErrors = new Counter({
    name: 'runbook_watch_api_errors_total',
    help: 'Runbook API errors seen by the watcher, by HTTP status (or error kind)',
    labelNames: ['status'],
    registers,
  });
  const slackErrors = new Counter({
    name: 'runbook_watch_slack_errors_total',
    help: 'Slack Web API errors seen by the watcher',
    labelNames: ['method', 'code'],
    registers,
  });
  const latency = new Histogram({
    name: 'runbook_watch_completion_to_message_seconds',
    help: 'Seconds from an execution ending to its result card being posted',
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const done = new Counter({
    name: 'runbook_watch_completed_total',
    help: 'Watches completed, by final state',
    labelNames: ['state'],
    registers,
  });
  const results = new Counter({
    name: 'runbook_watch_results_total',
    help: 'Result cards posted, by the execution status they report (Succeeded, Failed, …, or stale)',
    labelNames: ['status'],
    registers,
  });
  return {
    result: (status) => results.inc({ status }),
    setPending: (n) => pending.set(n),
    checked: (how) => checks.inc({ how }),
    apiError: (status) => apiErrors.inc({ status }),
    slackError: (method, code) => slackErrors.inc({ method, code }),
    reported: (s) => latency.observe(Math.max(0, s)),
    finished: (state) => done.inc({ state }),
  };
}
