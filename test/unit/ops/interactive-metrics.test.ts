import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { RunbookApiError } from '../../../src/api/errors.ts';
import { apiOperation, classifySlackRequest, createInteractiveMetrics } from '../../../src/ops/interactive-metrics.ts';
import { describeFailure } from '../../../src/slack/kit/describe-failure.ts';
import { UserFacingError } from '../../../src/slack/kit/user-facing-error.ts';
import { mockApi } from '../api/mock-api.ts';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function setup(pending?: () => Promise<number>) {
  const registry = new Registry();
  const metrics = createInteractiveMetrics(registry, pending ? { pendingApprovals: pending } : {});
  closers.push(() => metrics.close());
  const run = (body: Record<string, unknown>, next: () => Promise<void>) =>
    // biome-ignore lint/suspicious/noExplicitAny: the middleware reads body and next only
    metrics.middleware({ body, next } as any);
  const value = async (name: string, labels: Record<string, string>) => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const found = metric?.values.find((v) =>
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
    );
    return found?.value ?? 0;
  };
  return { registry, metrics, run, value };
}

describe('classifySlackRequest', () => {
  it('names each kind of request with a bounded label', () => {
    expect(classifySlackRequest({ command: '/runbook', text: 'run "Drain node"' })).toEqual({
      kind: 'command',
      name: 'run',
    });
    expect(classifySlackRequest({ command: '/runbook', text: '' })).toEqual({ kind: 'command', name: 'help' });
    expect(classifySlackRequest({ command: '/runbook', text: 'lsit' })).toEqual({ kind: 'command', name: 'unknown' });
    expect(classifySlackRequest({ type: 'block_actions', actions: [{ action_id: 'subscription_pick_3' }] })).toEqual({
      kind: 'block_actions',
      name: 'subscription_pick',
    });
    expect(classifySlackRequest({ type: 'view_submission', view: { callback_id: 'run_modal' } })).toEqual({
      kind: 'view_submission',
      name: 'run_modal',
    });
    expect(classifySlackRequest({ type: 'shortcut', callback_id: 'run_runbook' }).kind).toBe('shortcut');
    expect(classifySlackRequest({ type: 'event_callback', event: { type: 'app_home_opened' } })).toEqual({
      kind: 'event',
      name: 'app_home_opened',
    });
  });

  it('turns ids in API paths into {id}', () => {
    expect(apiOperation('POST', '/v1alpha1/workflows/wf-123/run')).toBe('POST /v1alpha1/workflows/{id}/run');
    expect(apiOperation('GET', '/v1alpha1/executions')).toBe('GET /v1alpha1/executions');
    expect(apiOperation('GET', '/v1alpha1/executions/e-9?x=1')).toBe('GET /v1alpha1/executions/{id}');
  });
});

describe('interactive metrics', () => {
  it('counts ok, failed (a failure was shown to the person) and error (a listener threw)', async () => {
    const { run, value } = setup();
    await run({ command: '/runbook', text: 'list' }, async () => {});
    await run({ command: '/runbook', text: 'run x' }, async () => {
      describeFailure(new UserFacingError('You may not run that.'));
    });
    await expect(
      run({ type: 'view_submission', view: { callback_id: 'run_modal' } }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await value('runbook_slack_requests_total', { kind: 'command', name: 'list', outcome: 'ok' })).toBe(1);
    expect(await value('runbook_slack_requests_total', { kind: 'command', name: 'run', outcome: 'failed' })).toBe(1);
    expect(
      await value('runbook_slack_requests_total', { kind: 'view_submission', name: 'run_modal', outcome: 'error' }),
    ).toBe(1);
    expect(await value('runbook_errors_shown_total', { kind: 'refused' })).toBe(1);
  });

  it('counts every failure described for a person by kind', async () => {
    const { value } = setup();
    describeFailure(
      new RunbookApiError({ tid: 't', method: 'GET', path: '/v1alpha1/workflows', message: 'x', status: 503 }),
    );
    describeFailure(new Error('surprise'));
    expect(await value('runbook_errors_shown_total', { kind: 'runbook_api' })).toBe(1);
    expect(await value('runbook_errors_shown_total', { kind: 'internal' })).toBe(1);
  });

  it('times Runbook API attempts by operation and status, through the transport hook', async () => {
    const { metrics, registry } = setup();
    const m = mockApi({ onAttempt: metrics.apiAttempt, maxRetries: 0 });
    closers.push(() => m.close());
    m.intercept('GET', '/v1alpha1/workflows/wf-1').reply(404, { code: 5, message: 'not found' });
    await expect(m.api.workflows.get('wf-1')).rejects.toThrow();
    const text = await registry.metrics();
    expect(text).toMatch(
      /runbook_api_request_duration_seconds_count\{operation="GET \/v1alpha1\/workflows\/\{id\}",status="404"\} 1/,
    );
  });

  it('reads pending approvals at scrape time and keeps the last value when the store fails', async () => {
    let answer: number | Error = 3;
    const { value } = setup(async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    });
    expect(await value('runbook_approvals_pending', {})).toBe(3);
    answer = new Error('store down');
    expect(await value('runbook_approvals_pending', {})).toBe(3);
  });
});
