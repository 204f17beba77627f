// A Runbook API that quotes the value it refused: the secret must not reach the error a person reads,
// the audit trail or the log, for runs and for schedules alike.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/api/errors.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { actor } from '../../../src/runs/actor.ts';
import type { RunsDeps } from '../../../src/runs/deps.ts';
import { startRun } from '../../../src/runs/run.ts';
import { saveSchedule } from '../../../src/runs/schedules.ts';
import { startUseCaseEnv, type UseCaseEnv } from './use-case-env.ts';

const SECRET = 'pem-Zq8/secret+key==';
const who = actor({ userId: 'U01ALICE', teamId: 'T1', groups: [], channelId: 'C01OPS', email: 'alice@example.com' });
let env: UseCaseEnv;

beforeAll(async () => {
  env = await startUseCaseEnv('rules: []\n');
});
afterAll(async () => {
  await env.close();
});

const refusal = (path: string) =>
  new BadRequestError({
    tid: 't',
    method: 'POST',
    path,
    status: 400,
    message: `invalid ssh_private_key "${SECRET}" (base64 ${Buffer.from(SECRET).toString('base64')})`,
  });

function refusingApi(): RunsDeps {
  const api: RunbookApi = {
    ...env.deps.api,
    workflows: { ...env.deps.api.workflows, run: async () => Promise.reject(refusal('/v1alpha1/workflows/x/run')) },
    schedules: { ...env.deps.api.schedules, create: async () => Promise.reject(refusal('/v1alpha1/schedules')) },
  };
  return { ...env.deps, api };
}

it('a refused run or schedule that quotes a secret input shows and audits it masked', async () => {
  const runbook = await env.runbook('Check Disk Usage on Hosts');
  const params = { hosts: ['web-1'], ssh_private_key: SECRET };
  const run = await startRun(refusingApi(), who, { runbook, proxyId: 'proxy-dev', params, via: 'form' });
  expect(run.kind).toBe('failed');
  const schedule = await saveSchedule(refusingApi(), who, {
    runbook,
    proxyId: 'proxy-dev',
    params,
    cron: '0 5 * * *',
    scheduleId: null,
  });
  expect(schedule.kind).toBe('failed');
  const errors = [run, schedule].map((r) => String((r as { error?: Error }).error?.message));
  for (const message of errors) expect(message).toContain('invalid ssh_private_key "••••••"');
  const everything = JSON.stringify([errors, await env.audit(10)]);
  expect(everything).not.toContain(SECRET);
  expect(everything).not.toContain(Buffer.from(SECRET).toString('base64'));
});
