// The bot for health tests: the emulator's month of runs ending at the bot's now (health counts 30 days
// by the bot's own clock), and the table policy of the authorization cases.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TABLE_POLICY } from './authorization-cases.ts';
import { type Harness, startHarness } from './bot-harness.ts';

export async function startHealthHarness(): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'health-'));
  writeFileSync(path.join(dir, 'policy.yaml'), TABLE_POLICY);
  return startHarness({
    env: { POLICY_FILE: path.join(dir, 'policy.yaml') },
    emulator: { recentHistory: true },
    clockStart: Date.now(),
  });
}
