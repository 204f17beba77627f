// Child process of the tenants benchmark: the many-workspace watcher alone (no emulator, no fake Slack:
// those live in the parent), over the parent's SQLite file. Samples its own RSS until SIGTERM, then
// stops the watcher and prints {"peakRss": bytes, "cpuMs": user + system CPU since start} as one JSON line.
import { openStore } from '../../src/store/open-store.ts';
import { tenantWatcher } from './tenant-watcher.ts';

const env = process.env;
const store = await openStore({ kind: 'sqlite', path: env.BENCH_STORE ?? '' });
const { watcher, close } = tenantWatcher(
  store,
  { api: env.BENCH_API_URL ?? '', slack: env.BENCH_SLACK_URL ?? '' },
  { perTenant: Number(env.BENCH_RATE), global: Number(env.BENCH_GLOBAL_RATE) },
);
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 250);
const cpuAtStart = process.cpuUsage();
watcher.start();
process.stdout.write('started\n');
process.on('SIGTERM', async () => {
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpuAtStart);
  await watcher.stop().catch(() => {});
  await close();
  await store.close();
  process.stdout.write(`${JSON.stringify({ peakRss, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
  process.exit(0);
});
