// Child process of the tenants benchmark: the whole bot in many-workspace mode (startRuntime, as main.ts
// runs it: Bolt's HTTP receiver and OAuth installer, the installation store, each installation's Runbook API
// client, the watcher, the subscriptions scanner, approval expiry, the minute's work), configured by
// BENCH_BOT_ENV (tenant-bot.ts) over the store the parent filled, against the parent's emulator and fake
// Slack. Reports its figures (child-figures.ts) from the runtime's start until SIGTERM, as one JSON line.
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startRuntime } from '../../src/runtime.ts';
import { sampleSelf } from './child-figures.ts';

const config = loadConfig(JSON.parse(process.env.BENCH_BOT_ENV ?? '{}') as Record<string, string>);
const self = sampleSelf();
const runtime = await startRuntime(config, { logger: createLogger({ level: 'silent' }) });
process.stdout.write('started\n');
process.on('SIGTERM', async () => {
  const figures = self.figures();
  await runtime.stop().catch(() => {});
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
});
