// Demo history of the last 30 days, so health (success rate, median and p95 duration, failure reasons,
// runs per day) has something to say: a handful of runbooks run a few times a day with their own
// typical duration, spread and failure rate, and a few failure reasons each. Deterministic (fixed seed,
// times relative to the start), so a test knows what the emulator holds.
import { PROD_PROXY } from './catalog-seed.ts';
import { createRandom, sha256Hex } from './random.ts';
import type { EmulatorState } from './state.ts';

const DAY_MS = 24 * 3600 * 1000;
export const RECENT_HISTORY_DAYS = 30;

export interface RecentHistoryProfile {
  name: string;
  /** Runs a day. */
  perDay: number;
  /** Typical duration. */
  medianMs: number;
  /** Share of runs that fail. */
  failureRate: number;
  /** What a failure says (picked at random, the first most often). */
  failures: string[];
}

export const RECENT_HISTORY: readonly RecentHistoryProfile[] = [
  {
    name: 'Restart Kubernetes Deployment',
    perDay: 3,
    medianMs: 4 * 60_000,
    failureRate: 0.1,
    failures: ['deployment "web" did not become ready within 300s', 'pods stuck in ContainerCreating'],
  },
  {
    name: 'Rotate IAM Access Keys',
    perDay: 1,
    medianMs: 90_000,
    failureRate: 0.4,
    failures: [
      'AccessDenied: iam:CreateAccessKey',
      'LimitExceeded: user already has 2 access keys',
      'throttled by AWS',
    ],
  },
  {
    name: 'Check Disk Usage on Hosts',
    perDay: 6,
    medianMs: 20_000,
    failureRate: 0.02,
    failures: ['ssh: connect to host db-3 port 22: Connection timed out'],
  },
  {
    name: 'Find Crashlooping Pods',
    perDay: 2,
    medianMs: 45_000,
    failureRate: 0.25,
    failures: ['kubeconfig expired', 'the server has asked for the client to provide credentials'],
  },
  {
    name: 'Postgres Vacuum Analyze',
    perDay: 1,
    medianMs: 12 * 60_000,
    failureRate: 0.05,
    failures: ['canceling statement due to lock timeout'],
  },
  {
    name: 'Check Postgres Replication Lag',
    perDay: 4,
    medianMs: 15_000,
    failureRate: 0.15,
    failures: ['replica lag 312s exceeds 60s', 'could not connect to replica-2'],
  },
  { name: 'Collect Kubernetes Pod Logs', perDay: 1, medianMs: 2 * 60_000, failureRate: 0, failures: [] },
];

// Nobody the sandbox plays (Alice, Bob, Carol): their "recent runs" stay their own.
const EXECUTORS = ['oncall@example.com', 'platform-bot@example.com', 'dave@example.com', 'api-key'];

/** Roughly normal (mean 0, sd 1) from two uniform draws. */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export function seedRecentHistory(state: EmulatorState, nowMs: number): void {
  const random = createRandom(20_261_101);
  for (const profile of RECENT_HISTORY) {
    const runbook = state.workflows.byId.get(sha256Hex(profile.name));
    if (!runbook) continue;
    const count = Math.round(profile.perDay * RECENT_HISTORY_DAYS);
    for (let i = 0; i < count; i++) {
      // Spread over the window, never in the last hour (so nothing is still running at the start).
      const startMs = Math.round(nowMs - 3600_000 - random() * (RECENT_HISTORY_DAYS * DAY_MS - 2 * 3600_000));
      // Log-normal spread around the typical duration, and now and then a run that drags on.
      const slow = random() < 0.05 ? 2.5 : 1;
      const durationMs = Math.max(1000, Math.round(profile.medianMs * Math.exp(0.3 * gaussian(random)) * slow));
      const failed = random() < profile.failureRate;
      const pick = random();
      const failure =
        profile.failures[pick < 0.6 ? 0 : Math.min(profile.failures.length - 1, 1 + Math.floor(random() * 2))];
      const executor = EXECUTORS[Math.floor(random() * EXECUTORS.length)]!;
      state.startExecutionAt(
        runbook,
        { proxyId: PROD_PROXY, params: '{}', ...(executor === 'api-key' ? {} : { userEmail: executor }) },
        {},
        startMs,
        { executor, approver: runbook.workflow.requiresApproval ? 'approver@example.com' : '' },
        {
          outcome: failed ? 'failed' : 'succeeded',
          durationMs,
          ...(failed && failure ? { failure } : {}),
        },
      );
    }
  }
}
