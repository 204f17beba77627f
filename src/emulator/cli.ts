// Standalone entry point: `npm run emulator -- --port 4010`. Parses its own argv (it is not the
// bot, so it does not go through config.ts and never reads process.env).
import { parseArgs } from 'node:util';
import { EMULATOR_DEFAULT_API_KEY } from '../config.ts';
import type { Faults } from './faults.ts';
import { FILTER_MODES, isFilterMode } from './filter.ts';
import { startEmulator, type TenantSeed } from './server.ts';

const USAGE = `Usage: npm run emulator -- [options]
  --port N              port to listen on (default 4010; 0 = random)
  --host H              interface to bind (default 127.0.0.1)
  --api-key K           required X-Service-API-Key (default ${EMULATOR_DEFAULT_API_KEY})
  --runbooks N          extra generated service runbooks (e.g. 10000 for benchmarks)
  --latency-ms N        added latency per /v1alpha1 request
  --error-rate R        share of /v1alpha1 requests answered 5xx (0..1)
  --rate-limit-rate R   share answered 429 with Retry-After (0..1)
  --drop-rate R         share whose connection is dropped unanswered (0..1)
  --filter-mode M       what lists do with filter: ${FILTER_MODES.join(', ')} (default apply)
  --tenant KEY=NAME     one more tenant chosen by its own key, with its own demo data (repeatable)
  --help                show this text`;

function numberFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new Error(`--${name} must be a number between ${min} and ${max}`);
  return n;
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string' },
      runbooks: { type: 'string' },
      'latency-ms': { type: 'string' },
      'error-rate': { type: 'string' },
      'rate-limit-rate': { type: 'string' },
      'drop-rate': { type: 'string' },
      'filter-mode': { type: 'string' },
      tenant: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const faults: Partial<Faults> = {};
  const latencyMs = numberFlag('latency-ms', values['latency-ms'], 0, 600_000);
  const errorRate = numberFlag('error-rate', values['error-rate'], 0, 1);
  const rateLimitRate = numberFlag('rate-limit-rate', values['rate-limit-rate'], 0, 1);
  const dropRate = numberFlag('drop-rate', values['drop-rate'], 0, 1);
  if (latencyMs !== undefined) faults.latencyMs = latencyMs;
  if (errorRate !== undefined) faults.errorRate = errorRate;
  if (rateLimitRate !== undefined) faults.rateLimitRate = rateLimitRate;
  if (dropRate !== undefined) faults.dropRate = dropRate;

  const filterMode = values['filter-mode'] ?? 'apply';
  if (!isFilterMode(filterMode)) throw new Error(`--filter-mode must be one of ${FILTER_MODES.join(', ')}`);

  const apiKey = values['api-key'] || EMULATOR_DEFAULT_API_KEY;
  const tenants: Record<string, TenantSeed> = {};
  for (const flag of values.tenant ?? []) {
    const at = flag.indexOf('=');
    const key = flag.slice(0, at);
    const name = flag.slice(at + 1);
    if (at <= 0 || !/^[\w-]{1,40}$/.test(name))
      throw new Error('--tenant must be KEY=NAME (NAME: letters, digits, - or _)');
    tenants[key] = { name };
  }
  const emulator = await startEmulator({
    port: numberFlag('port', values.port, 0, 65_535) ?? 4010,
    host: values.host || '127.0.0.1',
    apiKey,
    extraRunbooks: numberFlag('runbooks', values.runbooks, 0, 1_000_000),
    faults,
    filterMode,
    recentHistory: true,
    tenants,
  });
  console.log(`Runbook API emulator listening on ${emulator.url} (X-Service-API-Key: ${apiKey})`);
  for (const [key, seed] of Object.entries(tenants)) console.log(`Tenant ${seed.name}: X-Service-API-Key: ${key}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, stopping`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    console.error(USAGE);
    process.exit(2);
  });
}
