// Composition root for a process: config → logger → runtime (emulator, API client, Slack app).
// With no Slack credentials it starts sandbox mode: a local fake Slack the bot talks to.
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startRuntime } from './runtime.ts';
import { type FakeSlack, startFakeSlack } from './sandbox/fake-slack-api.ts';
import { SANDBOX_APPROVALS_CHANNEL, sandboxPolicy } from './sandbox/sandbox-defaults.ts';
import { type Sandbox, startSandbox } from './sandbox/sandbox-server.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({
    level: config.log.level,
    secrets: [config.api.apiKey, config.slack.botToken, config.slack.appToken, config.slack.signingSecret],
  });

  let fakeSlack: FakeSlack | null = null;
  if (config.sandbox) {
    fakeSlack = await startFakeSlack({ port: 0 });
    logger.info({ slackApiUrl: fakeSlack.url }, 'sandbox mode: no Slack credentials, using the local fake Slack');
  }
  const runtime = await startRuntime(config, {
    logger,
    ...(fakeSlack
      ? {
          slackApiUrl: fakeSlack.url,
          defaultPolicy: sandboxPolicy(),
          defaultApprovalsChannel: SANDBOX_APPROVALS_CHANNEL,
        }
      : {}),
  });

  // The sandbox signs what it sends to the bot with the secret the runtime generated for it.
  let sandbox: Sandbox | null = null;
  if (fakeSlack && config.sandbox && runtime.signingSecret) {
    sandbox = await startSandbox({
      port: config.sandbox.port,
      fake: fakeSlack,
      botUrl: `http://127.0.0.1:${runtime.slackPort}/slack/events`,
      signingSecret: runtime.signingSecret,
      logger: logger.child({ component: 'sandbox' }),
    });
    const port = new URL(sandbox.url).port;
    logger.info({ url: sandbox.url }, `Open http://localhost:${port} to try the bot`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await sandbox?.close();
    await runtime.stop();
    await fakeSlack?.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`runbook-bot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
