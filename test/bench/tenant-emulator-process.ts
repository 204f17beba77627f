// Child process of the tenants benchmark: the emulator serving every workspace's own tenant, in a process
// of its own so the API's work does not share an event loop with the fake Slack or the measurements.
// Driven by IPC messages from the scenario: start runs, move their ends, read the request counters.
import { SEEDED_RUNBOOK_NAMES } from '../../src/emulator/catalog.ts';
import { startEmulator } from '../../src/emulator/server.ts';
import { tenantKey } from './tenant-keys.ts';

export type EmulatorCommand =
  | { seq: number; cmd: 'run'; tenants: string[] }
  | { seq: number; cmd: 'retime'; ends: Array<[tenant: string, id: string, endMs: number]> }
  | { seq: number; cmd: 'requests'; reset?: boolean }
  | { seq: number; cmd: 'stop' };

const tenants = (process.env.BENCH_TENANTS ?? '').split(',').filter(Boolean);
const RUNBOOK = SEEDED_RUNBOOK_NAMES[0]!;
const emulator = await startEmulator({
  port: 0,
  // The default tenant is nobody's: every workspace has its own key.
  apiKey: 'bench-tenants-unused-default-key',
  tenants: Object.fromEntries(
    tenants.map((t) => [tenantKey(t), { name: t.toLowerCase(), runbooks: [RUNBOOK], history: false }]),
  ),
});
const stateOf = (tenant: string) => emulator.tenant(tenantKey(tenant))!;
const runbookOf = new Map(
  tenants.map((t) => [t, [...stateOf(t).workflows.byId.values()].find((r) => !r.workflow.isFolder)!.workflow]),
);

function answer(command: EmulatorCommand): unknown {
  switch (command.cmd) {
    case 'run':
      // One run per entry, running until told when to end ('retime').
      return command.tenants.map((tenant) => {
        const runbook = runbookOf.get(tenant)!;
        const record = stateOf(tenant).runWorkflow(runbook.id, {
          proxyId: 'proxy-dev',
          params: JSON.stringify({ simulate_duration_seconds: 3_600 }),
        });
        return { id: record.id, runbookId: runbook.id, runbookName: runbook.name };
      });
    case 'retime': {
      const byTenant = new Map<string, Map<string, number>>();
      for (const [tenant, id, endMs] of command.ends) {
        const ends = byTenant.get(tenant) ?? new Map<string, number>();
        ends.set(id, endMs);
        byTenant.set(tenant, ends);
      }
      for (const [tenant, ends] of byTenant) stateOf(tenant).executions.retime(ends);
      return null;
    }
    case 'requests': {
      let total = 0;
      for (const tenant of tenants) {
        total += stateOf(tenant).requests.total;
        if (command.reset) stateOf(tenant).requests.reset();
      }
      return total;
    }
    case 'stop':
      return null;
  }
}

process.on('message', async (command: EmulatorCommand) => {
  const value = answer(command);
  if (command.cmd === 'stop') await emulator.close();
  process.send!({ seq: command.seq, value }, () => {
    if (command.cmd === 'stop') process.exit(0);
  });
});
process.send!({ seq: 0, value: emulator.url });
