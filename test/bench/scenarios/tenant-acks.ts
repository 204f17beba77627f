// Scenario: interactive acks in many-workspace mode with 1,000 installations stored, next to the same
// runtime with one. `/runbook help` from one installed and connected workspace, 20 in flight, through
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
const TOTAL = 500;
const IN_FLIGHT = 20;

export async function tenantAcks(): Promise<ScenarioResult> {
  const key = randomBytes(32);
  const h = await startOAuthHarness({ env: { SECRETS_ENCRYPTION_KEY: key.toString('base64'), LOG_LEVEL: 'silent' } });
  const sender = new SignedSender(`${h.origin}/slack/events`, SIGNING_SECRET, IN_FLIGHT);
  const help = () => slashCommand(h.fake, 'help', 'U01ALICE', 'T0SANDBOX');
  const measure = async (): Promise<number[]> => {
    const samples: number[] = [];
    const result = await runConcurrent(TOTAL, IN_FLIGHT, async () => {
      const res = await sender.send(help());
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      samples.push(res.ms);
    });
    if (result.failed > 0) throw new Error(`${result.failed} acks failed: ${result.errors.join('; ')}`);
    return samples;
  };
  try {
    if ((await h.install('T0SANDBOX')).status !== 200) throw new Error('could not install T0SANDBOX');
    await measure(); // warm-up
    const one1 = await measure();
    const installations = createInstallationStore({
      records: h.runtime.store.installations,
      box: createSecretBox({ key }),
    });
    await runConcurrent(OTHERS, 8, async (i) => {
      const team = `T9${String(i).padStart(6, '0')}`;
      await installations.storeInstallation({
        team: { id: team, name: `Bench ${i}` },
        enterprise: undefined,
        user: { id: 'U0INSTALLER', token: undefined, scopes: undefined },
        bot: { id: 'B0BENCH', userId: 'U0BOT', token: `xoxb-bench-${i}`, scopes: ['commands', 'chat:write'] },
        isEnterpriseInstall: false,
        appId: 'A0BENCH',
      });
    });
    await measure(); // warm-up again, as the baseline had
    const many = await measure();
    const m = summarize(many);
    const o = summarize(one1);
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
        `/runbook help, ${TOTAL} per measurement, ${IN_FLIGHT} in flight, many-workspace runtime (OAuth installer authorize per request); the baseline is the same runtime before the ${OTHERS} other installations were stored`,
      ],
    };
  } finally {
    await sender.close();
    await h.stop();
  }
}
