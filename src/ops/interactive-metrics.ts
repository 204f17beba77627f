// Metrics of the interactive path: what people ask of the bot and how it goes, how fast the Runbook
// API answers, which failures people are shown, and how many approvals wait. Gathered at three
// seams so no listener has to know: one Bolt global middleware, the API transport's onAttempt
// hook, and the diagnostics channel describeFailure publishes on.
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AttemptRecord } from '../api/transport.ts';
import { FAILURE_SHOWN_CHANNEL } from '../slack/kit/describe-failure.ts';
import { SUBCOMMAND_NAMES } from '../slack/kit/parse-command.ts';

export interface InteractiveMetrics {
  /**
   * Bolt global middleware: counts and times every request Slack sends, by kind, name and outcome
   * (ok; failed: the person was shown a failure; error: a listener threw).
   */
  middleware: Middleware<AnyMiddlewareArgs>;
  /** For the API transport's onAttempt. */
  apiAttempt(attempt: AttemptRecord): void;
  /** Stops listening for failures shown to people. */
  close(): void;
}

export interface SlackRequestKind {
  /** command | block_actions | view_submission | view_closed | shortcut | block_suggestion | event | other */
  kind: string;
  /** Subcommand, action_id, callback_id or event type, with per-item suffixes cut off (bounded labels). */
  name: string;
}

const SUBCOMMANDS = new Set<string>(SUBCOMMAND_NAMES);

/** action ids like `subscription_pick_3` or `run:abc` count as their stem. */
function stem(id: unknown): string {
  if (typeof id !== 'string' || id === '') return 'unknown';
  return id
    .replace(/[:#].*$/, '')
    .replace(/(_\d+)+$/, '')
    .slice(0, 64);
}

/** What kind of request a Slack body is (pure; exported for tests). */
export function classifySlackRequest(body: Record<string, unknown>): SlackRequestKind {
  if (typeof body.command === 'string') {
    const word = String(body.text ?? '')
      .trim()
      .split(/\s+/)[0]!
      .toLowerCase();
    return { kind: 'command', name: word === '' ? 'help' : SUBCOMMANDS.has(word) ? word : 'unknown' };
  }
  const type = typeof body.type === 'string' ? body.type : 'other';
  if (type === 'block_actions') {
    const actions = body.actions as Array<{ action_id?: unknown }> | undefined;
    return { kind: type, name: stem(actions?.[0]?.action_id) };
  }
  if (type === 'view_submission' || type === 'view_closed') {
    return { kind: type, name: stem((body.view as { callback_id?: unknown } | undefined)?.callback_id) };
  }
  if (type === 'shortcut' || type === 'message_action') return { kind: 'shortcut', name: stem(body.callback_id) };
  if (type === 'block_suggestion') return { kind: type, name: stem(body.action_id) };
  if (type === 'event_callback') {
    return { kind: 'event', name: stem((body.event as { type?: unknown } | undefined)?.type) };
  }
  return { kind: 'other', name: stem(type) };
}

/** `GET /v1alpha1/workflows/{id}/run`: ids become `{id}` so the label set stays small. */
export function apiOperation(method: string, path: string): string {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  const shaped = parts.map((part, i) => (i === 2 ? '{id}' : part));
  return `${method} /${shaped.join('/')}`;
}

export function createInteractiveMetrics(
  registry: Registry,
  sources: { pendingApprovals?: () => Promise<number> } = {},
): InteractiveMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'runbook_slack_requests_total',
    help: 'Requests from Slack (commands, actions, submissions, options, shortcuts, events) by kind, name and outcome',
    labelNames: ['kind', 'name', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'runbook_slack_request_duration_seconds',
    help: 'Time to handle a request from Slack, by kind',
    labelNames: ['kind'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10],
    registers,
  });
  const api = new Histogram({
    name: 'runbook_api_request_duration_seconds',
    help: 'Runbook API request attempts by operation and HTTP status (or error name when no answer came)',
    labelNames: ['operation', 'status'],
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const shown = new Counter({
    name: 'runbook_errors_shown_total',
    help: 'Failures explained to a person in Slack, by kind (refused, runbook_api, slack, internal)',
    labelNames: ['kind'],
    registers,
  });
  const { pendingApprovals } = sources;
  if (pendingApprovals) {
    new Gauge({
      name: 'runbook_approvals_pending',
      help: 'Approval requests waiting for a decision',
      registers,
      async collect() {
        // Read at scrape time; a store that does not answer leaves the last value.
        try {
          this.set(await pendingApprovals());
        } catch {
          // readiness reports the store; the scrape still succeeds
        }
      },
    });
  }
  // The request being handled, so a failure shown while handling it marks its outcome.
  const current = new AsyncLocalStorage<{ failureShown: boolean }>();
  const onShown = (message: unknown) => {
    const kind = (message as { kind?: unknown }).kind;
    shown.inc({ kind: typeof kind === 'string' ? kind : 'internal' });
    const request = current.getStore();
    if (request) request.failureShown = true;
  };
  subscribe(FAILURE_SHOWN_CHANNEL.name, onShown);

  const middleware: Middleware<AnyMiddlewareArgs> = async ({ body, next }) => {
    const { kind, name } = classifySlackRequest(body as unknown as Record<string, unknown>);
    const stop = duration.startTimer({ kind });
    const request = { failureShown: false };
    try {
      await current.run(request, next);
      requests.inc({ kind, name, outcome: request.failureShown ? 'failed' : 'ok' });
    } catch (err) {
      requests.inc({ kind, name, outcome: 'error' });
      throw err;
    } finally {
      stop();
    }
  };

  return {
    middleware,
    apiAttempt(a) {
      api.observe(
        {
          operation: apiOperation(a.method, a.path),
          status: a.status === null ? (a.error ?? 'error') : String(a.status),
        },
        a.seconds,
      );
    },
    close() {
      unsubscribe(FAILURE_SHOWN_CHANNEL.name, onShown);
    },
  };
}
