// A start-up failure in one sentence that names what to change: a port already taken says which
// variable moves it.
import type { Config } from '../config.ts';

interface ListenError {
  code?: unknown;
  port?: unknown;
  message?: unknown;
}

/** The variables that set each port the process may listen on, for this configuration. */
function portVariables(config: Config): Array<{ port: number; variable: string }> {
  const ports = [{ port: config.slack.port, variable: 'PORT' }];
  if (config.sandbox) ports.push({ port: config.sandbox.port, variable: 'SANDBOX_PORT' });
  if (config.observe.metricsPort !== null) ports.push({ port: config.observe.metricsPort, variable: 'METRICS_PORT' });
  if (config.emulator && config.emulator.port !== 0)
    ports.push({ port: config.emulator.port, variable: 'EMULATOR_PORT' });
  return ports;
}

export function describeStartupError(err: unknown, config: Config): string {
  const e = (err ?? {}) as ListenError;
  const message = err instanceof Error ? err.message : String(err);
  if (e.code === 'EADDRINUSE' || e.code === 'EACCES') {
    const port = typeof e.port === 'number' ? e.port : Number(/:(\d+)\s*$/.exec(message)?.[1]);
    const names = portVariables(config)
      .filter((p) => p.port === port)
      .map((p) => p.variable);
    const variable = names.length ? names.join(' or ') : 'PORT, SANDBOX_PORT, METRICS_PORT or EMULATOR_PORT';
    const what = e.code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
    return `port ${Number.isFinite(port) ? port : '?'} ${what}: set ${variable} to a free port (in the environment or .env), or stop what is using it.`;
  }
  return message;
}
