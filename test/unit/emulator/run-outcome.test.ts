import { describe, expect, it } from 'vitest';
import { SERVICE_RUNBOOKS } from '../../../src/emulator/catalog-seed.ts';
import { formatDuration, planRun, renderRunResult } from '../../../src/emulator/run-outcome.ts';

const restart = SERVICE_RUNBOOKS.find((s) => s.name === 'Restart Kubernetes Deployment')!;

describe('planRun', () => {
  it('succeeds after the default duration when nothing steers it', () => {
    expect(planRun({ namespace: 'default' }, 7000)).toEqual({ outcome: 'succeeded', durationMs: 7000 });
  });

  it('fails when any string value is FAIL', () => {
    expect(planRun({ deployment: 'FAIL' }, 7000).outcome).toBe('failed');
  });

  it('lets simulate_outcome and simulate_duration_seconds win', () => {
    expect(planRun({ simulate_outcome: 'succeeded', x: 'FAIL', simulate_duration_seconds: 2.5 }, 7000)).toEqual({
      outcome: 'succeeded',
      durationMs: 2500,
    });
    expect(planRun({ simulate_outcome: 'FAILED', simulate_duration_seconds: '0' }, 7000)).toEqual({
      outcome: 'failed',
      durationMs: 0,
    });
  });
});

describe('renderRunResult', () => {
  const base = {
    seed: restart,
    version: '1.0.0',
    executionId: 'e-1',
    params: { namespace: 'web', db_password: 'hunter2' },
    startMs: Date.UTC(2025, 0, 1),
    durationMs: 12_000,
  };

  it('logs every step on success and masks secret-looking inputs', () => {
    const { output, reason } = renderRunResult({ ...base, outcome: 'succeeded' });
    expect(reason).toBe('');
    expect(output).toContain('Step 4/4: kubectl rollout status');
    expect(output).toContain('db_password=********');
    expect(output).not.toContain('hunter2');
    expect(output).toContain('SUCCEEDED in 12s');
  });

  it('stops at step 3 on failure with a reason naming the step', () => {
    const { output, reason } = renderRunResult({ ...base, outcome: 'failed' });
    expect(reason).toBe('Step 3 (kubectl rollout restart) exited with code 1: deployment "web" not found');
    expect(output).not.toContain('Step 4/4');
  });

  it('produces more than 10 KB for the long-output runbook', () => {
    const logs = SERVICE_RUNBOOKS.find((s) => s.longOutput)!;
    expect(renderRunResult({ ...base, seed: logs, outcome: 'succeeded' }).output.length).toBeGreaterThan(10_240);
  });

  it('formats durations as whole seconds', () => {
    expect(formatDuration(12_400)).toBe('12s');
    expect(formatDuration(0)).toBe('0s');
  });
});
