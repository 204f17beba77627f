// Demo history so lists are never empty: three schedules and ~30 finished executions spread over
// the last year (relative to the start time, from a fixed seed, so it is the same every start).
import type { WorkflowRecord } from './catalog.ts';
import { PROD_PROXY, STAGING_PROXY } from './catalog-seed.ts';
import { parseCron } from './cron.ts';
import { createRandom, sha256Hex, uuidFromSeed } from './random.ts';
import type { EmulatorState } from './state.ts';

const DAY_MS = 24 * 3600 * 1000;

const EXECUTORS = ['alice@example.com', 'bob@example.com', 'oncall@example.com', 'api-key', 'carol@example.com'];

const HISTORY_RUNBOOKS = [
  'Restart Kubernetes Deployment',
  'Find Unattached EBS Volumes',
  'Postgres Vacuum Analyze',
  'Check Disk Usage on Hosts',
  'Find Crashlooping Pods',
  'Rotate IAM Access Keys',
  'Check Postgres Replication Lag',
  'Collect Kubernetes Pod Logs',
  'Check <prod> & "staging" Health',
  'Stop Idle EC2 Instances',
];

/** Default values from a runbook's input schema: what a user accepting the form would send. */
function defaultParams(runbook: WorkflowRecord): Record<string, unknown> {
  if (!runbook.workflow.inputSchema) return {};
  const schema = JSON.parse(runbook.workflow.inputSchema) as { properties?: Record<string, { default?: unknown }> };
  const params: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) params[key] = prop.default;
  }
  return params;
}

export function seedHistory(state: EmulatorState, nowMs: number): void {
  const byName = (name: string) => state.workflows.byId.get(sha256Hex(name));
  const random = createRandom(20_240_601);

  for (let i = 0; i < 30; i++) {
    const runbook = byName(HISTORY_RUNBOOKS[Math.floor(random() * HISTORY_RUNBOOKS.length)]!);
    if (!runbook) continue;
    // A third of the history falls in the last month, the rest across the year.
    const ageMs = i % 3 === 0 ? (1 + random() * 28) * DAY_MS : (31 + random() * 330) * DAY_MS;
    const startMs = Math.round(nowMs - ageMs);
    const params = defaultParams(runbook);
    const executor = EXECUTORS[i % EXECUTORS.length]!;
    state.startExecutionAt(
      runbook,
      { proxyId: PROD_PROXY, params: JSON.stringify(params), userEmail: executor === 'api-key' ? undefined : executor },
      params,
      startMs,
      {
        executor,
        approver: runbook.workflow.requiresApproval ? 'approver@example.com' : '',
        // Every fifth is a single action run from the runbook, as the service records them.
        type: i % 5 === 4 ? 'EXECUTION_TYPE_ACTION' : 'EXECUTION_TYPE_RUNBOOK',
      },
      { outcome: random() < 0.3 ? 'failed' : 'succeeded', durationMs: runbook.defaultDurationMs },
    );
  }

  const schedules: Array<{
    name: string;
    cron: string;
    params: Record<string, unknown>;
    proxyId: string;
    email: string;
  }> = [
    {
      name: 'Postgres Vacuum Analyze',
      cron: '0 5 * * *',
      params: { database: 'app', tables: [], verbose: false },
      proxyId: PROD_PROXY,
      email: 'dba@example.com',
    },
    {
      name: 'Find Unattached EBS Volumes',
      cron: '30 8 * * MON',
      params: { regions: ['us-east-1', 'us-west-2'], min_age_days: 7 },
      proxyId: PROD_PROXY,
      email: 'finops@example.com',
    },
    {
      name: 'Check Kubernetes Certificate Expiry',
      cron: '0 9 1 * *',
      params: {},
      proxyId: STAGING_PROXY,
      email: 'alice@example.com',
    },
  ];
  schedules.forEach((s, index) => {
    const runbook = byName(s.name);
    if (!runbook) return;
    const createdMs = nowMs - (90 - index * 10) * DAY_MS;
    const record = state.createSchedule(
      {
        proxyId: s.proxyId,
        runbookId: runbook.workflow.id,
        runbookName: runbook.workflow.name,
        inputSchema: runbook.workflow.inputSchema,
        params: JSON.stringify(s.params),
        schedule: s.cron,
      },
      { id: uuidFromSeed(`${state.idScope}schedule:${s.name}`), userEmail: s.email, createdMs },
    );
    // The last firing before now, as if the schedule had been running all along.
    const cron = parseCron(s.cron);
    const previous = cron.previousRuns(1, new Date(nowMs))[0];
    if (previous && previous.getTime() > createdMs) record.schedule.lastRun = previous.toISOString();
  });
}
