// The bot for health tests: the emulator's month of runs ending at the bot's now (health counts 30 days
// by the bot's own clock), and the table policy of the authorization cases; a runbook's history seeded for ETAs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EmulatorState } from '../../src/emulator/state.ts';
import { TABLE_POLICY } from './authorization-cases.ts';
import { type Harness, startHarness } from './bot-harness.ts';

const HOUR = 3600_000;

/**
 * 25 finished runs of `runbookName` over the days before `nowMs` (5 hours apart), `firstMs` + 20 ms × i long
 * each, in the emulator's state (or one tenant's).
 */
export function seedFinishedRuns(state: EmulatorState, nowMs: number, runbookName: string, firstMs: number): void {
  const record = [...state.workflows.byId.values()].find((w) => w.workflow.name === runbookName)!;
  for (let i = 0; i < 25; i++) {
    state.startExecutionAt(
      record,
      { proxyId: 'proxy-dev', params: '{}' },
      {},
      nowMs - (i + 1) * 5 * HOUR,
      { executor: 'oncall@example.com', approver: '' },
      { outcome: 'succeeded', durationMs: firstMs + i * 20 },
    );
  }
  state.catchUp();
}

export async function startHealthHarness(): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'health-'));
  writeFileSync(path.join(dir, 'policy.yaml'), TABLE_POLICY);
  return startHarness({
    env: { POLICY_FILE: path.join(dir, 'policy.yaml') },
    emulator: { recentHistory: true },
    clockStart: Date.now(),
  });
}
