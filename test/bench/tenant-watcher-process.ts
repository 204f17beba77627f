// Child process of the tenants benchmark: the many-workspace watcher alone (no emulator, no fake Slack:
// those live in the parent), over the parent's SQLite file. Reports its figures (child-figures.ts) from its
// start until SIGTERM, as one JSON line.
import { openStore } from '../../src/store/open-store.ts';
import { sampleSelf } from './child-figures.ts';
import { tenantWatcher } from './tenant-watcher.ts';

const env = process.env;
const store = await openStore({ kind: 'sqlite', path: env.BENCH_STORE ?? '' });
const { watcher, close } = tenantWatcher(
  store,
  { api: env.BENCH_API_URL ?? '', slack: env.BENCH_SLACK_URL ?? '' },
  { perTenant: Number(env.BENCH_RATE), global: Number(env.BENCH_GLOBAL_RATE) },
);
const self = sampleSelf();
watcher.start();
process.stdout.write('started\n');
process.on('SIGTERM', async () => {
  const figures = self.figures();
  await watcher.stop().catch(() => {});
  await close();
  await store.close();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
});
