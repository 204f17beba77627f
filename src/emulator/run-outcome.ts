// Outcome steering and simulated output. Deterministic by design so tests can ask for what they
// need: `simulate_outcome` ("succeeded" | "failed") and `simulate_duration_seconds` in the params
// win; otherwise any string value "FAIL" fails the run; otherwise it succeeds after the runbook's
// default duration.
import type { RunbookSeed } from './catalog-seed.ts';

export type Outcome = 'succeeded' | 'failed';

export interface RunPlan {
  outcome: Outcome;
  durationMs: number;
}

export function planRun(params: Record<string, unknown>, defaultDurationMs: number): RunPlan {
  const steer = params.simulate_outcome;
  let outcome: Outcome = 'succeeded';
  if (typeof steer === 'string' && ['succeeded', 'failed'].includes(steer.toLowerCase())) {
    outcome = steer.toLowerCase() as Outcome;
  } else if (Object.values(params).some((v) => v === 'FAIL')) {
    outcome = 'failed';
  }
  const seconds = Number(params.simulate_duration_seconds);
  const steered = params.simulate_duration_seconds !== undefined && params.simulate_duration_seconds !== '';
  const durationMs =
    steered && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : defaultDurationMs;
  return { outcome, durationMs };
}

/** Wire form of a duration: whole seconds with an "s" suffix, like protobuf's Duration JSON ("12s"). */
export function formatDuration(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

const SECRET_KEY = /pass(word)?|secret|token|private_key|api_key|credential/i;

function describeInputs(params: Record<string, unknown>): string {
  const entries = Object.entries(params).filter(([key]) => !key.startsWith('simulate_'));
  if (entries.length === 0) return '(none)';
  return entries
    .map(([key, value]) => `${key}=${SECRET_KEY.test(key) ? '********' : JSON.stringify(value)}`)
    .join(', ');
}

export interface RunResult {
  output: string;
  reason: string;
}

export interface RunContext {
  seed: RunbookSeed;
  version: string;
  executionId: string;
  params: Record<string, unknown>;
  startMs: number;
  durationMs: number;
  outcome: Outcome;
}

/** The failing step is step 3 (or the last one for shorter runbooks). */
function failingStep(steps: string[]): number {
  return Math.min(3, steps.length);
}

export function renderRunResult(ctx: RunContext): RunResult {
  const { seed, startMs, durationMs } = ctx;
  const steps = seed.steps.length > 0 ? seed.steps : ['run'];
  const failAt = ctx.outcome === 'failed' ? failingStep(steps) : Number.POSITIVE_INFINITY;
  const lastStep = Math.min(steps.length, failAt);
  const stamp = (fraction: number) => new Date(startMs + Math.round(durationMs * fraction)).toISOString();
  const lines: string[] = [
    `[${stamp(0)}] Starting runbook "${seed.name}" v${ctx.version} (execution ${ctx.executionId})`,
    `[${stamp(0)}] Inputs: ${describeInputs(ctx.params)}`,
  ];
  for (let n = 1; n <= lastStep; n++) {
    const step = steps[n - 1]!;
    lines.push(`[${stamp((n - 1) / steps.length)}] Step ${n}/${steps.length}: ${step}`);
    if (seed.longOutput && n === 2) {
      lines.push(...longLog(startMs));
    }
    if (n === failAt) {
      lines.push(`[${stamp(n / steps.length)}]   ERROR ${seed.failure}`);
      lines.push(`[${stamp(n / steps.length)}]   step exited with code 1`);
    } else {
      lines.push(`[${stamp(n / steps.length)}]   ok`);
    }
  }
  const status = ctx.outcome === 'failed' ? 'FAILED' : 'SUCCEEDED';
  lines.push(`[${stamp(1)}] Runbook finished: ${status} in ${formatDuration(durationMs)}`);
  const reason =
    ctx.outcome === 'failed' ? `Step ${failAt} (${steps[failAt - 1]}) exited with code 1: ${seed.failure}` : '';
  return { output: `${lines.join('\n')}\n`, reason };
}

const PODS = ['web-7d9f8c6b5-x2k4p', 'web-7d9f8c6b5-q8m1z', 'api-5c4b7f9d8-l0v3n', 'worker-6f8d9c7b4-t5r2w'];
const ROUTES = ['GET /api/orders', 'POST /api/checkout', 'GET /healthz', 'GET /api/products?page=2', 'PUT /api/cart'];

/** ~40 KB of pod log lines: the case where the bot must trim output to Slack's limits. */
function longLog(startMs: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 480; i++) {
    const pod = PODS[i % PODS.length]!;
    const route = ROUTES[(i * 7) % ROUTES.length]!;
    const status = i % 53 === 0 ? 500 : 200;
    const ms = 3 + ((i * 37) % 250);
    lines.push(`  ${pod} ${new Date(startMs - (480 - i) * 1500).toISOString()} ${route} ${status} ${ms}ms`);
  }
  return lines;
}
