// Scenario: interactive acks in many-workspace mode with 1,000 installations stored, next to a second
// runtime with one, measured alternately. `/runbook help` from one installed and connected workspace, 20 in flight, through
// the real OAuth runtime (Bolt's installer authorize reads the installation from the store per request).
import { randomBytes } from 'node:crypto';
import { createInstallationStore } from '../../../src/tenants/installation-store.ts';
import { createSecretBox } from '../../../src/tenants/secret-box.ts';
import { SIGNING_SECRET, startOAuthHarness } from '../../support/oauth-harness.ts';
import { ms, type ScenarioResult, times } from '../report.ts';
import { runConcurrent } from '../run-concurrent.ts';
import { SignedSender } from '../signed-sender.ts';
import { slashCommand } from '../slack-bodies.ts';
import { ratio, summarize } from '../stats.ts';

const OTHERS = Number(process.env.BENCH_INSTALLATIONS ?? 1_000);
const TOTAL = 200;
const ROUNDS = 4;
const IN_FLIGHT = 20;

interface Side {
  stop(): Promise<void>;
  measure(): Promise<number[]>;
}

/** One many-workspace runtime with T0SANDBOX installed and connected, plus `others` more installations stored. */
async function side(others: number): Promise<Side> {
  const key = randomBytes(32);
  const h = await startOAuthHarness({ env: { SECRETS_ENCRYPTION_KEY: key.toString('base64'), LOG_LEVEL: 'silent' } });
  const sender = new SignedSender(`${h.origin}/slack/events`, SIGNING_SECRET, IN_FLIGHT);
  try {
    if ((await h.install('T0SANDBOX')).status !== 200) throw new Error('could not install T0SANDBOX');
    const installations = createInstallationStore({
      records: h.runtime.store.installations,
      box: createSecretBox({ key }),
    });
    await runConcurrent(others, 8, async (i) => {
      await installations.storeInstallation({
        team: { id: `T9${String(i).padStart(6, '0')}`, name: `Bench ${i}` },
        enterprise: undefined,
        user: { id: 'U0INSTALLER', token: undefined, scopes: undefined },
        bot: { id: 'B0BENCH', userId: 'U0BOT', token: `xoxb-bench-${i}`, scopes: ['commands', 'chat:write'] },
        isEnterpriseInstall: false,
        appId: 'A0BENCH',
      });
    });
  } catch (err) {
    await sender.close();
    await h.stop();
    throw err;
  }
  return {
    async measure() {
      const samples: number[] = [];
      const result = await runConcurrent(TOTAL, IN_FLIGHT, async () => {
        const res = await sender.send(slashCommand(h.fake, 'help', 'U01ALICE', 'T0SANDBOX'));
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        samples.push(res.ms);
      });
      if (result.failed > 0) throw new Error(`${result.failed} acks failed: ${result.errors.join('; ')}`);
      return samples;
    },
    async stop() {
      await sender.close();
      await h.stop();
    },
  };
}

export async function tenantAcks(): Promise<ScenarioResult> {
  const one = await side(0);
  const lots = await side(OTHERS);
  try {
    // Warm both, then alternate so neither side always runs on a warmer (or busier) moment.
    await one.measure();
    await lots.measure();
    const many: number[] = [];
    const single: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      single.push(...(await one.measure()));
      many.push(...(await lots.measure()));
    }
    const m = summarize(many);
    const o = summarize(single);
    return {
      id: 'tenant-acks',
      rows: [
        {
          scenario: `ack p50, ${OTHERS + 1} installations (vs 1)`,
          ours: ms(m.p50),
          baseline: ms(o.p50),
          ratio: times(ratio(m.p50, o.p50)),
        },
        {
          scenario: `ack p99, ${OTHERS + 1} installations (vs 1)`,
          ours: ms(m.p99),
          baseline: ms(o.p99),
          ratio: times(ratio(m.p99, o.p99)),
        },
      ],
      data: { installations: OTHERS + 1, many: m, one: o },
      notes: [
        `/runbook help, ${IN_FLIGHT} in flight, many-workspace runtime (OAuth installer authorize per request); two runtimes side by side, one with only that installation, measured alternately ${ROUNDS} × ${TOTAL}`,
      ],
    };
  } finally {
    await lots.stop();
    await one.stop();
  }
}
