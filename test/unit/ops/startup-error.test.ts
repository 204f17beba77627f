import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { startMetricsServer } from '../../../src/ops/ops-routes.ts';
import { describeStartupError } from '../../../src/ops/startup-error.ts';

async function takenPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('start-up errors', () => {
  it('a taken port names the variable that moves it', async () => {
    const taken = await takenPort();
    try {
      const config = loadConfig({ SANDBOX_PORT: String(taken.port) });
      const err = await startMetricsServer(taken.port, undefined as never).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('EADDRINUSE');
      expect(describeStartupError(err, config)).toBe(
        `port ${taken.port} is already in use: set SANDBOX_PORT to a free port (in the environment or .env), or stop what is using it.`,
      );
      const http = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: String(taken.port) });
      expect(describeStartupError(err, http)).toContain('set PORT to a free port');
      const metrics = loadConfig({ METRICS_PORT: String(taken.port) });
      expect(describeStartupError(err, metrics)).toContain('set METRICS_PORT to a free port');
    } finally {
      await taken.close();
    }
  });

  it('other errors keep their message', () => {
    expect(describeStartupError(new Error('policy file not found'), loadConfig({}))).toBe('policy file not found');
  });
});
