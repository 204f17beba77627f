// Many workspaces, at the code that reads and writes them in an installation's scope: a break-glass pass, a
// run limit, an output upload and a Workflow Builder step of one installation are never used, counted, blocked
// or ended in another, even for the same person, the same service runbook and the same execution id (each
// tenant's API makes its own ids, and Slack Connect / Grid users are in several installed workspaces).
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution } from '../../../src/api/schemas.ts';
import { createLogger } from '../../../src/logger.ts';
import { RunRateLimit } from '../../../src/policy/run-rate-limit.ts';
import { actor } from '../../../src/runs/actor.ts';
import { breakFreeze } from '../../../src/runs/freezes.ts';
import { runWithoutApproval } from '../../../src/runs/run-direct.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { finishWaitingSteps } from '../../../src/slack/workflow-step/workflow-step-finish.ts';
import type { Watch } from '../../../src/store/store.ts';
import { inInstallation } from '../../../src/tenants/tenant-scope.ts';
import { uploadOutputOnce } from '../../../src/watch/output-upload.ts';
import { step } from '../store/saved-runs-contract.ts';
import { newWatch } from '../store/store-contract.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const POLICY = `
approvers: { users: [U0BOB] }
freezes:
  - name: Release freeze
    start: "2020-01-01T00:00Z"
    end: "2100-01-01T00:00Z"
    runbooks: { names: ["Scale *"] }
`;
const A = 'T0AAA';
const B = 'T0BBB';
const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

let env: UseCaseEnv;
let fake: FakeSlack;
let slack: WebClient;
beforeAll(async () => {
  env = await startUseCaseEnv(POLICY);
  fake = await startFakeSlack({ port: 0, botToken: 'xoxb-keys' });
  slack = new WebClient('xoxb-keys', {
    slackApiUrl: fake.url,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
});
afterAll(async () => {
  await fake.close();
  await env.close();
});

/** Bob (an approver, as the policy says) is in both installed workspaces: one Grid user, say. */
const bob = (teamId: string) => actor({ userId: 'U0BOB', teamId, groups: [], channelId: 'C0OPS' });
const SCALE_PARAMS = { namespace: 'prod', deployment: 'web', replicas: 2 };

describe('records kept per installation, used in scope', () => {
  it('a break-glass pass granted in one workspace does not let the same person through in another', async () => {
    const scale = await env.runbook('Scale Kubernetes Deployment');
    const request = { runbook: scale, proxyId: 'proxy-dev', params: SCALE_PARAMS, via: 'workflow-step' as const };
    const granted = await inInstallation(A, () => breakFreeze(env.deps, bob(A), scale.name, 'INC-9: node is on fire'));
    expect(granted).toMatchObject({ kind: 'granted' });
    // The same service runbook id in B's tenant, the same user: still frozen there.
    const inB = await inInstallation(B, () => runWithoutApproval(env.deps, bob(B), request, 'from a workflow'));
    expect(inB).toMatchObject({ kind: 'refused', reason: 'frozen' });
    // In A the pass lets one run through.
    const inA = await inInstallation(A, () => runWithoutApproval(env.deps, bob(A), request, 'from a workflow'));
    expect(inA).toMatchObject({ kind: 'started' });
  });

  it('a person’s run limit in one workspace is not spent by their runs in another', async () => {
    let now = 1_700_000_000_000;
    const limit = new RunRateLimit({ perMinute: 2, store: env.store.runLimits, now: () => now });
    for (let i = 0; i < 2; i++) expect(await inInstallation(A, () => limit.take('U0CAROL'))).toEqual({ ok: true });
    expect(await inInstallation(A, () => limit.take('U0CAROL'))).toMatchObject({ ok: false });
    expect(await inInstallation(B, () => limit.take('U0CAROL'))).toEqual({ ok: true });
    now += 1;
    expect(await limit.take('U0CAROL')).toEqual({ ok: true });
  });

  it('the same execution id finished in two workspaces uploads each one’s output, each once', async () => {
    const long = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const deps = { store: env.store, slack, logger, now: () => 1_000 };
    const run = {
      executionId: 'e-same',
      runbookName: 'Restart',
      channel: 'C01OPS',
      threadTs: '1.000001',
      output: long,
    };
    expect(await inInstallation(A, () => uploadOutputOnce(deps, run))).toBe('uploaded');
    expect(await inInstallation(A, () => uploadOutputOnce(deps, run))).toBe('already_claimed');
    expect(await inInstallation(B, () => uploadOutputOnce(deps, run))).toBe('uploaded');
  });

  it('a step waiting in one workspace is not ended by another workspace’s run of the same execution id', async () => {
    await env.store.workflowSteps.begin(step('Fx0WAIT'), 1, A);
    await env.store.workflowSteps.attachExecution('Fx0WAIT', 'e-shared', 2, A);
    const hook = finishWaitingSteps({ store: env.store, logger, now: () => 3 }, slack);
    const execution = { id: 'e-shared', executionStatus: 'EXECUTION_STATUS_SUCCEEDED', output: 'ok' } as Execution;
    // The hook reads only the watch's execution id.
    const watch = newWatch('e-shared') as unknown as Watch;
    const finished = { watch, execution, stale: false, channel: 'C01OPS', messageTs: '1.000001' };
    const completions = () => fake.state.calls.filter((c) => c.method.startsWith('functions.complete')).length;
    const before = completions();
    await inInstallation(B, () => hook(finished));
    expect(completions()).toBe(before);
    expect(await env.store.workflowSteps.get('Fx0WAIT', A)).toMatchObject({ state: 'pending' });
    await inInstallation(A, () => hook(finished));
    expect(completions()).toBe(before + 1);
    expect(await env.store.workflowSteps.get('Fx0WAIT', A)).toMatchObject({ state: 'completed' });
  });
});
