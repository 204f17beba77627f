// Test fixture: a client wired to an undici MockAgent (no network), a recording sleep and fixed
// jitter, plus wire-shaped sample payloads.
import { MockAgent } from 'undici';
import { afterEach } from 'vitest';
import { createRunbookApi, type RunbookApiOptions } from '../../../src/api/client.ts';

export const ORIGIN = 'http://runbook.test';
export const API_KEY = 'sk-test-4f1d2c3b-secret';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function mockApi(options: Partial<RunbookApiOptions> = {}) {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const sleeps: number[] = [];
  const api = createRunbookApi({
    baseUrl: ORIGIN,
    apiKey: API_KEY,
    dispatcher: agent,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  /** Every request that reached the mock, in order. */
  const calls = () => agent.getCallHistory()?.calls() ?? [];
  /** Intercepts one request by method and path (any query). */
  const intercept = (method: string, path: string) =>
    pool.intercept({ method, path: (p: string) => p.split('?')[0] === path });
  const bodyOf = (index: number) => JSON.parse(String(calls()[index]?.body ?? 'null'));
  const close = async () => {
    await api.close();
    await agent.close();
  };
  return { agent, pool, api, sleeps, calls, intercept, bodyOf, close };
}

export type MockApi = ReturnType<typeof mockApi>;

/** A mockApi factory whose clients are closed after each test. */
export function useMockApis(): (options?: Partial<RunbookApiOptions>) => MockApi {
  const opened: MockApi[] = [];
  afterEach(async () => {
    for (const m of opened.splice(0)) await m.close();
  });
  return (options) => {
    const m = mockApi(options);
    opened.push(m);
    return m;
  };
}

export const respHdr = (tid = 'resp-tid-1', requestTid = '') => ({ tid, requestTid });

export const workflowJson = (overrides: Record<string, unknown> = {}) => ({
  name: 'Restart pods',
  id: 'a'.repeat(64),
  description: 'Restarts crashlooping pods',
  tags: ['k8s'],
  currentVersion: '1.0.0',
  createTime: '2024-01-02T03:04:05Z',
  lastRun: null,
  lastUpdated: '2024-02-02T03:04:05Z',
  proxyId: 'proxy-1',
  inputSchema: '',
  requiresApproval: false,
  runningDisabled: false,
  parentId: '',
  isFolder: false,
  path: '/k8s/',
  enableEnvironment: false,
  executionDisabled: false,
  connectorTypes: ['CONNECTOR_TYPE_K8S'],
  categories: ['CATEGORY_TYPE_SRE'],
  icon: 'CONNECTOR_TYPE_K8S',
  environmentStatus: [{ environmentName: 'Dev', status: 'Ready', reason: [] }],
  runningDisabledByFloatingEnv: false,
  ...overrides,
});

export const scheduleJson = (overrides: Record<string, unknown> = {}) => ({
  id: '11111111-2222-3333-4444-555555555555',
  proxyId: 'proxy-1',
  proxyName: 'Proxy One',
  runbookId: 'a'.repeat(64),
  runbookName: 'Restart pods',
  inputSchema: '',
  params: '{}',
  schedule: '0 5 * * *',
  lastRun: null,
  lastUpdated: '2024-02-02T03:04:05Z',
  userEmail: 'ops@example.com',
  ...overrides,
});

export const executionJson = (overrides: Record<string, unknown> = {}) => ({
  id: '99999999-8888-7777-6666-555555555555',
  workflowName: 'Restart pods',
  createTime: '2024-01-02T03:04:05Z',
  startTime: '2024-01-02T03:04:06Z',
  endTime: '2024-01-02T03:05:06Z',
  duration: '60s',
  version: '1.0.0',
  executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
  inputs: '{}',
  output: Buffer.from('all pods restarted ✓').toString('base64'),
  executor: 'ops@example.com',
  approver: '',
  reason: '',
  executionType: 'EXECUTION_TYPE_RUNBOOK',
  ...overrides,
});

export const JSON_HEADERS = { 'content-type': 'application/json' };
