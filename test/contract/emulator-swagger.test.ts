// Checks every operation of the contract, as the emulator answers it, against the upstream
// OpenAPI definitions: each emitted field must exist there with a matching JSON type.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/clock.ts';
import { sha256Hex } from '../../src/emulator/random.ts';
import { type Emulator, startEmulator } from '../../src/emulator/server.ts';

// biome-ignore lint/suspicious/noExplicitAny: swagger documents are arbitrary JSON
type Json = any;

const load = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../../shared/reference/${name}`, import.meta.url), 'utf8'));
const workflowsDoc = load('upstream-workflows.swagger.json');
const schedulesDoc = load('upstream-schedules.swagger.json');

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Returns a list of problems: fields not in the schema, or of the wrong JSON type. */
function checkAgainst(value: unknown, schema: Json, doc: Json, at = '$'): string[] {
  if (schema?.$ref) {
    const name = String(schema.$ref).replace('#/definitions/', '');
    return checkAgainst(value, doc.definitions[name], doc, at);
  }
  if (schema === undefined) return [`${at}: not in the definition`];
  if (value === null) {
    return schema.type === 'string' && schema.format === 'date-time' ? [] : [`${at}: null is not allowed here`];
  }
  const type = schema.type ?? (schema.properties || schema.additionalProperties ? 'object' : undefined);
  switch (type) {
    case 'string': {
      if (typeof value !== 'string') return [`${at}: expected string, got ${typeof value}`];
      if (schema.format === 'byte' && !BASE64.test(value)) return [`${at}: expected base64`];
      if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) return [`${at}: expected date-time`];
      if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${value} is not one of the enum values`];
      return [];
    }
    case 'integer':
      return Number.isInteger(value)
        ? []
        : [`${at}: expected integer (as a JSON number), got ${JSON.stringify(value)}`];
    case 'number':
      return typeof value === 'number' ? [] : [`${at}: expected number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: expected boolean`];
    case 'array':
      if (!Array.isArray(value)) return [`${at}: expected array`];
      return value.flatMap((item, i) => checkAgainst(item, schema.items, doc, `${at}[${i}]`));
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: expected object`];
      return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
        if (schema.properties?.[key]) return checkAgainst(child, schema.properties[key], doc, `${at}.${key}`);
        if (schema.additionalProperties !== undefined) {
          const extra = schema.additionalProperties;
          return Object.keys(extra).length === 0 ? [] : checkAgainst(child, extra, doc, `${at}.${key}`);
        }
        return [`${at}.${key}: not in the definition`];
      });
    }
    default:
      return [`${at}: definition has no type`];
  }
}

function responseSchema(doc: Json, method: string, path: string, status: '200' | 'default'): Json {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not in the swagger document`);
  return op.responses[status].schema;
}

const KEY = 'contract-key';
let emulator: Emulator;
const RESTART = sha256Hex('Restart Kubernetes Deployment');

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'X-Service-API-Key': KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

function expectConforms(json: unknown, doc: Json, method: string, template: string, status: '200' | 'default' = '200') {
  expect(checkAgainst(json, responseSchema(doc, method, template, status), doc)).toEqual([]);
}

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    apiKey: KEY,
    clock: new ManualClock(Date.UTC(2025, 5, 1)),
    defaultDurationMs: 5000,
  });
});
afterAll(() => emulator.close());

describe('the checker itself', () => {
  it('flags unknown fields, wrong types and bad base64', () => {
    const execution = { $ref: '#/definitions/v1alpha1Execution' };
    expect(checkAgainst({ id: 'x', bogus: 1 }, execution, workflowsDoc)).toEqual(['$.bogus: not in the definition']);
    expect(checkAgainst({ id: 5 }, execution, workflowsDoc)).toEqual(['$.id: expected string, got number']);
    expect(checkAgainst({ output: 'not base64!' }, execution, workflowsDoc)).toEqual(['$.output: expected base64']);
    expect(checkAgainst({ endTime: null, executionStatus: 'DONE' }, execution, workflowsDoc)).toEqual([
      '$.executionStatus: DONE is not one of the enum values',
    ]);
    const list = { $ref: '#/definitions/v1alpha1ListExecutionsResponse' };
    expect(checkAgainst({ statusTable: { A: '3' } }, list, workflowsDoc)).toHaveLength(1);
  });
});

describe('emulator responses match the upstream definitions', () => {
  it('workflows: list, get, run', async () => {
    const list = await call('GET', '/v1alpha1/workflows?pageSize=100&reqHdr.tid=t');
    expect(list.status).toBe(200);
    expectConforms(list.json, workflowsDoc, 'GET', '/v1alpha1/workflows');
    const custom = await call('GET', '/v1alpha1/workflows?isService=false');
    expectConforms(custom.json, workflowsDoc, 'GET', '/v1alpha1/workflows');
    const get = await call('GET', `/v1alpha1/workflows/${RESTART}`);
    expectConforms(get.json, workflowsDoc, 'GET', '/v1alpha1/workflows/{workflowId}');
    const run = await call('POST', `/v1alpha1/workflows/${RESTART}/run`, { proxyId: 'p', params: '{"namespace":"a"}' });
    expect(run.status).toBe(200);
    expectConforms(run.json, workflowsDoc, 'POST', '/v1alpha1/workflows/{workflowId}/run');
  });

  it('executions: list and get (in progress, finished, summary)', async () => {
    const run = await call('POST', `/v1alpha1/workflows/${RESTART}/run`, { proxyId: 'p', params: '{"x":"FAIL"}' });
    const id = run.json.executionIds[0];
    const inProgress = await call('GET', `/v1alpha1/executions/${id}`);
    expect(inProgress.json.execution.endTime).toBeNull();
    expectConforms(inProgress.json, workflowsDoc, 'GET', '/v1alpha1/executions/{executionId}');
    emulator.advance(5000);
    const finished = await call('GET', `/v1alpha1/executions/${id}`);
    expect(finished.json.execution.executionStatus).toBe('EXECUTION_STATUS_FAILED');
    expectConforms(finished.json, workflowsDoc, 'GET', '/v1alpha1/executions/{executionId}');
    const summary = await call('GET', `/v1alpha1/executions/${id}?summary=true`);
    expectConforms(summary.json, workflowsDoc, 'GET', '/v1alpha1/executions/{executionId}');
    const list = await call('GET', '/v1alpha1/executions?pageSize=100&timeRange=last_year&orderBy=ascending');
    expect(list.json.execution.length).toBeGreaterThan(20);
    expectConforms(list.json, workflowsDoc, 'GET', '/v1alpha1/executions');
  });

  it('schedules: create, list, get, update, delete', async () => {
    const created = await call('POST', '/v1alpha1/schedules', {
      reqHdr: { tid: 'c' },
      schedule: { runbookId: RESTART, proxyId: 'p', params: '{}', schedule: '0 5 * * *' },
    });
    expect(created.status).toBe(200);
    expectConforms(created.json, schedulesDoc, 'POST', '/v1alpha1/schedules');
    const id = created.json.schedule.id;
    emulator.advance(24 * 3600_000);
    expectConforms((await call('GET', '/v1alpha1/schedules')).json, schedulesDoc, 'GET', '/v1alpha1/schedules');
    const get = await call('GET', `/v1alpha1/schedules/${id}`);
    expect(get.json.schedule.lastRun).not.toBeNull();
    expectConforms(get.json, schedulesDoc, 'GET', '/v1alpha1/schedules/{scheduleId}');
    const patched = await call('PATCH', `/v1alpha1/schedules/${id}`, { schedule: '0 6 * * *' });
    expectConforms(patched.json, schedulesDoc, 'PATCH', '/v1alpha1/schedules/{scheduleId}');
    const deleted = await call('DELETE', `/v1alpha1/schedules/${id}`);
    expectConforms(deleted.json, schedulesDoc, 'DELETE', '/v1alpha1/schedules/{scheduleId}');
  });

  it('errors are rpcStatus bodies', async () => {
    const missing = await call('GET', '/v1alpha1/executions/nope');
    expect(missing.status).toBe(404);
    expectConforms(missing.json, workflowsDoc, 'GET', '/v1alpha1/executions/{executionId}', 'default');
    const bad = await call('POST', '/v1alpha1/schedules', { schedule: { runbookId: RESTART, schedule: 'nope' } });
    expect(bad.status).toBe(400);
    expectConforms(bad.json, schedulesDoc, 'POST', '/v1alpha1/schedules', 'default');
  });
});

describe('names the contract changes from upstream', () => {
  it('authenticates with X-Service-API-Key, not the upstream header', async () => {
    expect(workflowsDoc.securityDefinitions.Bearer.name).toBe('X-unSkript-API-Key');
    const upstream = await fetch(`${emulator.url}/v1alpha1/workflows`, { headers: { 'X-unSkript-API-Key': KEY } });
    expect(upstream.status).toBe(401);
    const contract = await fetch(`${emulator.url}/v1alpha1/workflows`, { headers: { 'X-Service-API-Key': KEY } });
    expect(contract.status).toBe(200);
  });

  it('selects runbook kinds with isService, and ignores the upstream isUnskript flag', async () => {
    const upstreamParams = workflowsDoc.paths['/v1alpha1/workflows'].get.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(upstreamParams).toContain('isUnskript');
    const all = (await call('GET', '/v1alpha1/workflows')).json.totalCount;
    const custom = (await call('GET', '/v1alpha1/workflows?isService=false')).json.totalCount;
    const upstreamFlag = (await call('GET', '/v1alpha1/workflows?isUnskript=false')).json.totalCount;
    expect(custom).toBe(10);
    expect(upstreamFlag).toBe(all);
  });
});
