// Builds the runbook catalog: the seeded runbooks plus N generated service runbooks (for
// benchmarks). Everything derives from names and the start time, so two emulators started at the
// same clock time hold identical catalogs.
import type { Workflow } from '../api/schemas.ts';
import { CUSTOM_RUNBOOKS, type RunbookSeed, SERVICE_RUNBOOKS } from './catalog-seed.ts';
import { INPUT_SCHEMAS, type InputSchemaKey } from './input-schemas.ts';
import { hashString, sha256Hex, uuidFromSeed } from './random.ts';

export interface WorkflowRecord {
  /** The wire object; mutated in place when lastRun changes. */
  workflow: Workflow;
  isService: boolean;
  seed: RunbookSeed;
  /** Run duration when the inputs don't steer it: 3–15 s, stable per runbook. */
  defaultDurationMs: number;
  /** Lower-cased name, description and tags for bare-word filter terms. */
  searchText: string;
}

const DAY_MS = 24 * 3600 * 1000;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toRecord(seed: RunbookSeed, id: string, isService: boolean, nowMs: number): WorkflowRecord {
  const h = hashString(id);
  const createMs = nowMs - (60 + (h % 640)) * DAY_MS;
  const updatedMs = Math.min(nowMs - DAY_MS, createMs + ((h >>> 10) % 50) * DAY_MS);
  const connectorTypes = seed.connectors.map((c) => `CONNECTOR_TYPE_${c}`);
  const first = seed.connectors[0] ?? 'REST';
  const workflow: Workflow = {
    name: seed.name,
    id,
    description: seed.description,
    tags: [...seed.tags],
    currentVersion: seed.version ?? '1.0.0',
    createTime: iso(createMs),
    lastRun: null,
    lastUpdated: iso(updatedMs),
    proxyId: seed.proxyId ?? '',
    inputSchema: INPUT_SCHEMAS[seed.schema],
    requiresApproval: seed.requiresApproval ?? false,
    runningDisabled: seed.runningDisabled ?? false,
    parentId: '',
    isFolder: false,
    path: isService ? `/${first.toLowerCase()}/` : '/',
    enableEnvironment: seed.proxyId !== undefined || seed.notReady !== undefined,
    executionDisabled: seed.executionDisabled ?? false,
    connectorTypes,
    categories: seed.categories.map((c) => `CATEGORY_TYPE_${c}`),
    icon: `CONNECTOR_TYPE_${first}`,
    environmentStatus: [
      {
        environmentName: 'Production',
        status: seed.notReady ? 'NotReady' : 'Ready',
        reason: seed.notReady ? [seed.notReady] : [],
      },
      { environmentName: 'Staging', status: 'Ready', reason: [] },
    ],
    runningDisabledByFloatingEnv: seed.runningDisabledByFloatingEnv ?? false,
  };
  return {
    workflow,
    isService,
    seed,
    defaultDurationMs: 3000 + (h % 12_001),
    searchText: `${seed.name}\n${seed.description}\n${seed.tags.join('\n')}`.toLowerCase(),
  };
}

interface ExtraTemplate {
  connector: string;
  categories: string[];
  schema: InputSchemaKey;
  subjects: string[];
  tags: string[];
}

const EXTRA_TEMPLATES: ExtraTemplate[] = [
  {
    connector: 'AWS',
    categories: ['CLOUDOPS', 'COST_OPT'],
    schema: 'awsRegionDryRun',
    subjects: ['EC2 Instances', 'EBS Snapshots', 'Lambda Functions', 'RDS Instances', 'S3 Buckets', 'NAT Gateways'],
    tags: ['aws'],
  },
  {
    connector: 'AWS',
    categories: ['SECOPS', 'IAM'],
    schema: 'awsRegionOnly',
    subjects: ['IAM Roles', 'KMS Keys', 'CloudTrail Trails', 'Secrets Manager Secrets'],
    tags: ['aws', 'security'],
  },
  {
    connector: 'K8S',
    categories: ['DEVOPS', 'SRE'],
    schema: 'k8sNamespace',
    subjects: ['Deployments', 'StatefulSets', 'CronJobs', 'Ingresses', 'PersistentVolumeClaims', 'HPAs'],
    tags: ['kubernetes'],
  },
  {
    connector: 'GCP',
    categories: ['CLOUDOPS'],
    schema: 'gcpProject',
    subjects: ['Cloud SQL Instances', 'GCS Buckets', 'Cloud Run Services', 'Pub/Sub Subscriptions'],
    tags: ['gcp'],
  },
  {
    connector: 'POSTGRESQL',
    categories: ['SRE', 'TROUBLESHOOTING'],
    schema: 'postgres',
    subjects: ['Postgres Indexes', 'Postgres Replication Slots', 'Postgres Roles', 'Postgres Table Bloat'],
    tags: ['postgres', 'database'],
  },
  {
    connector: 'SSH',
    categories: ['SRE'],
    schema: 'hosts',
    subjects: ['Host Certificates', 'Cron Jobs', 'Systemd Timers', 'Kernel Versions'],
    tags: ['linux'],
  },
];

const EXTRA_VERBS = [
  'Audit',
  'Find Unused',
  'Report',
  'Clean Up',
  'Tag',
  'Back Up',
  'Check',
  'Right-Size',
  'Inventory',
];
const EXTRA_SCOPES = [
  '',
  ' in Production',
  ' in Staging',
  ' in Dev',
  ' (us-east-1)',
  ' (us-west-2)',
  ' (eu-west-1)',
  ' (ap-southeast-1)',
  ' for Team Payments',
  ' for Team Search',
  ' for Team Growth',
  ' for Team Platform',
  ' for Team Data',
  ' for Team Identity',
  ' (weekly)',
  ' (nightly)',
  ' (quarterly review)',
  ' - Compliance',
  ' - SOC 2 Evidence',
  ' - Cost Review',
];

const SUBJECTS = EXTRA_TEMPLATES.flatMap((template) => template.subjects.map((subject) => ({ template, subject })));

/** Generates `count` more service runbooks cheaply (names from verb × subject × scope). */
export function generateExtraRunbooks(count: number, nowMs: number, taken: Set<string>): WorkflowRecord[] {
  const records: WorkflowRecord[] = [];
  const combos = SUBJECTS.length * EXTRA_VERBS.length * EXTRA_SCOPES.length;
  for (let i = 0; records.length < count; i++) {
    const { template, subject } = SUBJECTS[i % SUBJECTS.length]!;
    const verb = EXTRA_VERBS[Math.floor(i / SUBJECTS.length) % EXTRA_VERBS.length]!;
    const scope = EXTRA_SCOPES[Math.floor(i / (SUBJECTS.length * EXTRA_VERBS.length)) % EXTRA_SCOPES.length]!;
    const round = Math.floor(i / combos);
    const name = `${verb} ${subject}${scope}${round > 0 ? ` #${round + 1}` : ''}`;
    if (taken.has(name)) continue;
    taken.add(name);
    const seed: RunbookSeed = {
      name,
      description: `${verb} ${subject.toLowerCase()}${scope.toLowerCase()} and report what was found.`,
      categories: template.categories,
      connectors: [template.connector],
      tags: [...template.tags, verb.toLowerCase().replace(/\s+/g, '-')],
      schema: template.schema,
      steps: ['connect', `list ${subject.toLowerCase()}`, `${verb.toLowerCase()} ${subject.toLowerCase()}`, 'report'],
      failure: `access denied while listing ${subject.toLowerCase()}`,
    };
    records.push(toRecord(seed, sha256Hex(name), true, nowMs));
  }
  return records;
}

export interface CatalogScope {
  /** Prefix of the ids of a tenant's own (custom) runbooks; '' for the default tenant. */
  idScope?: string;
  /** Only the seeded runbooks with these names (default: every one). */
  only?: readonly string[];
}

export function buildCatalog(nowMs: number, extraRunbooks = 0, scope: CatalogScope = {}): WorkflowRecord[] {
  const only = scope.only ? new Set(scope.only) : null;
  const kept = (seeds: readonly RunbookSeed[]) => (only ? seeds.filter((seed) => only.has(seed.name)) : seeds);
  const idScope = scope.idScope ?? '';
  const service = kept(SERVICE_RUNBOOKS).map((seed) => toRecord(seed, sha256Hex(seed.name), true, nowMs));
  const custom = kept(CUSTOM_RUNBOOKS).map((seed) =>
    toRecord(seed, uuidFromSeed(`${idScope}custom:${seed.name}`), false, nowMs),
  );
  const taken = new Set([...SERVICE_RUNBOOKS, ...CUSTOM_RUNBOOKS].map((s) => s.name));
  return [...service, ...custom, ...generateExtraRunbooks(Math.max(0, Math.floor(extraRunbooks)), nowMs, taken)];
}

/** Names of every seeded runbook (a tenant's `runbooks` picks among them). */
export const SEEDED_RUNBOOK_NAMES: readonly string[] = [...SERVICE_RUNBOOKS, ...CUSTOM_RUNBOOKS].map((s) => s.name);
