// Input schemas of the seeded runbooks: JSON Schema objects serialised as strings, exactly as the
// service stores them. Between them they cover every parameter type the forms must handle:
// short and long strings, number/integer with bounds, boolean, enum (one with >100 values),
// arrays of enums and of strings, object, secrets (format password and the service's own
// "secret" type), date, date-time, email and uri.

type Property = Record<string, unknown>;

function schema(properties: Record<string, Property>, required: string[] = []): string {
  return JSON.stringify({ properties, required, title: 'Schema', type: 'object' });
}

export const AWS_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'sa-east-1',
  'me-south-1',
  'af-south-1',
];

const INSTANCE_FAMILIES = [
  't3',
  't3a',
  't4g',
  'm5',
  'm6i',
  'm6g',
  'm7i',
  'm7g',
  'c5',
  'c6i',
  'c7g',
  'r5',
  'r6i',
  'r7g',
];
const INSTANCE_SIZES = [
  'nano',
  'micro',
  'small',
  'medium',
  'large',
  'xlarge',
  '2xlarge',
  '4xlarge',
  '8xlarge',
  '16xlarge',
];

/** 140 EC2 instance types: the enum with more than 100 values (beyond a static select's limit). */
export const EC2_INSTANCE_TYPES = INSTANCE_FAMILIES.flatMap((family) =>
  INSTANCE_SIZES.map((size) => `${family}.${size}`),
);

export const TIME_ZONES = [
  'UTC',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Sao_Paulo',
  'Europe/London',
  'Europe/Berlin',
  'Europe/Paris',
  'Europe/Madrid',
  'Asia/Kolkata',
  'Asia/Singapore',
  'Asia/Tokyo',
  'Australia/Sydney',
];

const K8S_CONTEXTS = ['prod-us-east-1', 'prod-eu-west-1', 'staging', 'dev'];

const namespace: Property = {
  default: 'default',
  description: 'Kubernetes namespace',
  title: 'Namespace',
  type: 'string',
};
const k8sContext: Property = {
  default: 'staging',
  description: 'kubectl context (cluster) to use',
  enum: K8S_CONTEXTS,
  title: 'Cluster',
  type: 'string',
};
const region: Property = {
  default: 'us-west-2',
  description: 'AWS Region',
  enum: AWS_REGIONS,
  title: 'region',
  type: 'string',
};
const dryRun: Property = {
  default: true,
  description: 'Only report what would change',
  title: 'dry_run',
  type: 'boolean',
};

export const INPUT_SCHEMAS = {
  none: '',
  k8sDeployment: schema(
    {
      namespace,
      deployment: { description: 'Name of the Deployment', title: 'Deployment', type: 'string', minLength: 1 },
      context: k8sContext,
      wait_for_rollout: { default: true, title: 'Wait for rollout', type: 'boolean' },
      timeout_seconds: {
        default: 300,
        description: 'Give up waiting after this many seconds',
        maximum: 3600,
        minimum: 30,
        title: 'Timeout (seconds)',
        type: 'integer',
      },
    },
    ['namespace', 'deployment'],
  ),
  k8sScale: schema(
    {
      namespace,
      deployment: { title: 'Deployment', type: 'string' },
      replicas: { default: 3, maximum: 100, minimum: 0, title: 'Replicas', type: 'integer' },
      context: k8sContext,
    },
    ['namespace', 'deployment', 'replicas'],
  ),
  k8sNode: schema(
    {
      node_name: { description: 'Node to act on, e.g. ip-10-0-12-34.ec2.internal', title: 'Node name', type: 'string' },
      context: k8sContext,
      grace_period_seconds: { default: 60, maximum: 600, minimum: 0, title: 'Grace period (seconds)', type: 'integer' },
      ignore_daemonsets: { default: true, title: 'Ignore DaemonSets', type: 'boolean' },
      delete_emptydir_data: { default: false, title: 'Delete emptyDir data', type: 'boolean' },
    },
    ['node_name'],
  ),
  k8sNamespace: schema({ namespace, context: k8sContext }, ['namespace']),
  k8sLogs: schema(
    {
      namespace,
      label_selector: {
        default: 'app=web',
        description: 'Pods to collect from',
        title: 'Label selector',
        type: 'string',
      },
      tail_lines: { default: 200, maximum: 5000, minimum: 10, title: 'Lines per pod', type: 'integer' },
      since: { description: 'Only logs newer than this time', format: 'date-time', title: 'Since', type: 'string' },
    },
    ['namespace'],
  ),
  awsRegionDryRun: schema({ region, dry_run: dryRun }, ['region']),
  awsRegionOnly: schema({ region }, ['region']),
  awsRegions: schema(
    {
      regions: {
        default: ['us-east-1'],
        description: 'Regions to scan',
        items: { enum: AWS_REGIONS, type: 'string' },
        title: 'Regions',
        type: 'array',
      },
      min_age_days: { default: 7, maximum: 365, minimum: 0, title: 'Minimum age (days)', type: 'integer' },
    },
    ['regions'],
  ),
  awsEbsDelete: schema(
    {
      region,
      volume_ids: {
        description: 'Volume ids to delete, e.g. vol-0abc123',
        items: { type: 'string' },
        title: 'Volume IDs',
        type: 'array',
      },
      snapshot_first: { default: true, title: 'Snapshot before delete', type: 'boolean' },
    },
    ['region', 'volume_ids'],
  ),
  awsIdleInstances: schema(
    {
      region,
      cpu_threshold_percent: {
        default: 5,
        description: 'Average CPU below this counts as idle',
        maximum: 100,
        minimum: 0,
        title: 'CPU threshold (%)',
        type: 'number',
      },
      lookback_hours: { default: 72, maximum: 720, minimum: 1, title: 'Look back (hours)', type: 'integer' },
      tag_filter: {
        description: 'Only instances with all of these tags',
        title: 'Tag filter',
        type: 'object',
        additionalProperties: { type: 'string' },
      },
      dry_run: dryRun,
    },
    ['region'],
  ),
  awsResizeInstance: schema(
    {
      region,
      instance_id: { pattern: '^i-[0-9a-f]{8,17}$', title: 'Instance ID', type: 'string' },
      instance_type: {
        default: 't3.medium',
        description: 'Target instance type',
        enum: EC2_INSTANCE_TYPES,
        title: 'Instance type',
        type: 'string',
      },
      restart: { default: true, title: 'Start after resize', type: 'boolean' },
    },
    ['region', 'instance_id', 'instance_type'],
  ),
  iamRotate: schema(
    {
      user_name: { description: 'IAM user whose keys to rotate', title: 'IAM user', type: 'string' },
      max_key_age_days: { default: 90, maximum: 365, minimum: 1, title: 'Max key age (days)', type: 'integer' },
      notify_email: {
        description: 'Who receives the new key instructions',
        format: 'email',
        title: 'Notify email',
        type: 'string',
      },
      deactivate_old_key: { default: false, title: 'Deactivate old key', type: 'boolean' },
    },
    ['user_name', 'notify_email'],
  ),
  ecsService: schema(
    {
      region,
      cluster: { default: 'prod', title: 'Cluster', type: 'string' },
      service: { title: 'Service', type: 'string' },
      force_new_deployment: { default: true, title: 'Force new deployment', type: 'boolean' },
    },
    ['cluster', 'service'],
  ),
  rdsSnapshot: schema(
    {
      region,
      db_instance_identifier: { title: 'DB instance', type: 'string' },
      snapshot_name: { description: 'Leave empty for a generated name', title: 'Snapshot name', type: 'string' },
      retain_until: {
        description: 'Delete the snapshot after this date',
        format: 'date',
        title: 'Retain until',
        type: 'string',
      },
    },
    ['db_instance_identifier'],
  ),
  cloudfront: schema(
    {
      distribution_id: { title: 'Distribution ID', type: 'string' },
      paths: { default: ['/*'], items: { type: 'string' }, title: 'Paths', type: 'array' },
    },
    ['distribution_id'],
  ),
  gcpInstance: schema(
    {
      project: { default: 'acme-prod', title: 'project', type: 'string' },
      zone: {
        default: 'us-central1-a',
        enum: ['us-central1-a', 'us-central1-b', 'us-east1-b', 'europe-west1-b', 'asia-east1-a'],
        title: 'zone',
        type: 'string',
      },
      instance_name: { title: 'instance_name', type: 'string' },
    },
    ['project', 'zone', 'instance_name'],
  ),
  gcpProject: schema({ project: { default: 'acme-prod', title: 'project', type: 'string' } }, ['project']),
  gkeNodePool: schema(
    {
      project: { default: 'acme-prod', title: 'Project', type: 'string' },
      cluster: { title: 'Cluster', type: 'string' },
      node_pool: { default: 'default-pool', title: 'Node pool', type: 'string' },
      node_count: { default: 3, maximum: 50, minimum: 0, title: 'Node count', type: 'integer' },
    },
    ['cluster', 'node_pool', 'node_count'],
  ),
  postgres: schema(
    {
      database: { default: 'app', title: 'Database', type: 'string' },
      tables: {
        description: 'Leave empty for all tables',
        items: { type: 'string' },
        title: 'Tables',
        type: 'array',
      },
      verbose: { default: false, title: 'Verbose', type: 'boolean' },
    },
    ['database'],
  ),
  postgresQueries: schema(
    {
      database: { default: 'app', title: 'Database', type: 'string' },
      min_duration_seconds: {
        default: 30,
        description: 'Only queries running at least this long',
        minimum: 1,
        maximum: 86_400,
        title: 'Minimum duration (s)',
        type: 'number',
      },
    },
    ['database'],
  ),
  postgresTerminate: schema(
    {
      database: { default: 'app', title: 'Database', type: 'string' },
      pids: { description: 'Backend PIDs to terminate', items: { type: 'integer' }, title: 'PIDs', type: 'array' },
      db_password: {
        description: 'Password of the admin role (not stored)',
        format: 'password',
        title: 'Admin password',
        type: 'string',
      },
    },
    ['database', 'pids', 'db_password'],
  ),
  hosts: schema(
    {
      hosts: { description: 'Hostnames or IPs', items: { type: 'string' }, title: 'Hosts', type: 'array' },
      threshold_percent: { default: 85, maximum: 100, minimum: 1, title: 'Alert threshold (%)', type: 'number' },
      ssh_user: { default: 'ops', title: 'SSH user', type: 'string' },
      ssh_private_key: { description: 'PEM private key', title: 'SSH private key', type: 'secret' },
    },
    ['hosts'],
  ),
  systemd: schema(
    {
      hosts: { items: { type: 'string' }, title: 'Hosts', type: 'array' },
      service: { default: 'nginx', title: 'Unit', type: 'string' },
      action: { default: 'restart', enum: ['restart', 'reload', 'stop', 'start'], title: 'Action', type: 'string' },
    },
    ['hosts', 'service'],
  ),
  slackPost: schema(
    {
      channel: { default: '#incidents', title: 'Channel', type: 'string' },
      severity: { default: 'SEV3', enum: ['SEV1', 'SEV2', 'SEV3', 'SEV4'], title: 'Severity', type: 'string' },
      summary: {
        description: 'What happened, impact, current status (markdown allowed)',
        format: 'textarea',
        maxLength: 3000,
        title: 'Summary',
        type: 'string',
      },
      status_page_url: { format: 'uri', title: 'Status page URL', type: 'string' },
    },
    ['channel', 'summary'],
  ),
  maintenanceWindow: schema(
    {
      title: { maxLength: 120, title: 'Title', type: 'string' },
      description: {
        description: 'Shown to everyone affected; include rollback plan',
        maxLength: 2000,
        title: 'Description',
        type: 'string',
      },
      start_time: { format: 'date-time', title: 'Start', type: 'string' },
      end_date: { format: 'date', title: 'End date', type: 'string' },
      time_zone: { default: 'UTC', enum: TIME_ZONES, title: 'Time zone', type: 'string' },
      environments: {
        default: ['staging'],
        items: { enum: ['production', 'staging', 'dev', 'sandbox'], type: 'string' },
        title: 'Environments',
        type: 'array',
      },
      owner_email: { format: 'email', title: 'Owner email', type: 'string' },
      runbook_url: { format: 'uri', title: 'Runbook URL', type: 'string' },
      expected_downtime_minutes: {
        default: 15,
        maximum: 480,
        minimum: 0,
        title: 'Expected downtime (min)',
        type: 'number',
      },
      notify_customers: { default: false, title: 'Notify customers', type: 'boolean' },
      metadata: {
        description: 'Free-form JSON attached to the window',
        title: 'Metadata',
        type: 'object',
      },
      pagerduty_token: { description: 'Used to silence alerts', title: 'PagerDuty token', type: 'secret' },
    },
    ['title', 'start_time', 'environments'],
  ),
  redis: schema(
    {
      host: { default: 'redis.internal', title: 'Host', type: 'string' },
      port: { default: 6379, maximum: 65535, minimum: 1, title: 'Port', type: 'integer' },
      key_pattern: { default: 'cache:*', title: 'Key pattern', type: 'string' },
      password: { format: 'password', title: 'Password', type: 'string' },
    },
    ['host', 'key_pattern'],
  ),
  elasticsearch: schema(
    { cluster_url: { default: 'https://es.internal:9200', format: 'uri', title: 'Cluster URL', type: 'string' } },
    ['cluster_url'],
  ),
  jenkins: schema(
    {
      job_name: { title: 'Job', type: 'string' },
      parameters: { description: 'Build parameters', title: 'Parameters', type: 'object' },
      wait: { default: true, title: 'Wait for completion', type: 'boolean' },
    },
    ['job_name'],
  ),
  healthCheck: schema(
    {
      environment: { default: 'prod', enum: ['prod', 'staging'], title: 'Environment', type: 'string' },
      endpoints: {
        default: ['/healthz', '/readyz'],
        items: { type: 'string' },
        title: 'Endpoints',
        type: 'array',
      },
    },
    [],
  ),
  kafka: schema(
    {
      bootstrap_servers: { default: 'kafka.internal:9092', title: 'Bootstrap servers', type: 'string' },
      consumer_groups: { items: { type: 'string' }, title: 'Consumer groups', type: 'array' },
      lag_threshold: { default: 10000, minimum: 0, title: 'Lag threshold', type: 'integer' },
    },
    ['bootstrap_servers'],
  ),
  mongo: schema(
    {
      database: { title: 'database', type: 'string' },
      slow_ms: { default: 100, minimum: 1, title: 'slow_ms', type: 'integer' },
    },
    ['database'],
  ),
  deployHotfix: schema(
    {
      git_ref: { default: 'main', title: 'Git ref', type: 'string' },
      environment: { default: 'staging', enum: ['staging', 'production'], title: 'Environment', type: 'string' },
      change_ticket: { pattern: '^CHG-[0-9]+$', title: 'Change ticket', type: 'string' },
      skip_canary: { default: false, title: 'Skip canary', type: 'boolean' },
    },
    ['git_ref', 'environment', 'change_ticket'],
  ),
  webhookSecret: schema(
    {
      integration: { enum: ['stripe', 'github', 'pagerduty', 'zendesk'], title: 'Integration', type: 'string' },
      new_secret: { title: 'New signing secret', type: 'secret' },
      effective_from: { format: 'date-time', title: 'Effective from', type: 'string' },
    },
    ['integration', 'new_secret'],
  ),
  onboard: schema(
    {
      full_name: { title: 'Full name', type: 'string' },
      email: { format: 'email', title: 'Email', type: 'string' },
      teams: {
        items: { enum: ['platform', 'payments', 'search', 'growth', 'security'], type: 'string' },
        title: 'Teams',
        type: 'array',
      },
      start_date: { format: 'date', title: 'Start date', type: 'string' },
      github_username: { title: 'GitHub username', type: 'string' },
    },
    ['full_name', 'email', 'teams'],
  ),
  reindex: schema(
    {
      index: { default: 'products', title: 'Index', type: 'string' },
      batch_size: { default: 500, maximum: 10000, minimum: 10, title: 'Batch size', type: 'integer' },
    },
    ['index'],
  ),
} as const;

export type InputSchemaKey = keyof typeof INPUT_SCHEMAS;
