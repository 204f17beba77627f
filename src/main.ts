// Composition root for a process: config → logger → runtime (emulator, API client, Slack app).
// With no Slack credentials it starts sandbox mode: a local fake Slack the bot talks to.
import { ConfigError, loadConfig } from './config.ts';
import { BANNER, createLogger } from './logger.ts';
import { describeStartupError } from './ops/startup-error.ts';
import type { Tracing } from './ops/tracing.ts';
import { type Runtime, startRuntime } from './runtime.ts';
import { type FakeSlack, startFakeSlack } from './sandbox/fake-slack-api.ts';
import { SANDBOX_APPROVALS_CHANNEL, sandboxManyWorkspacesPolicy, sandboxPolicy } from './sandbox/sandbox-defaults.ts';
import { type Sandbox, startSandbox } from './sandbox/sandbox-server.ts';
import {
  addFirstWorkspace,
  addWorkspacePeople,
  manyWorkspaceSandboxConfig,
  moveConnectionsToThisEmulator,
  registerSandboxApp,
  SANDBOX_EMULATOR_TENANTS,
} from './sandbox/sandbox-workspaces.ts';

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
    // A person trying the sandbox at a terminal reads lines; anything else (a log collector) gets JSON.
    format: config.log.format ?? (config.sandbox && process.stdout.isTTY ? 'pretty' : 'json'),
    secrets: [
      config.api.apiKey,
      config.slack.botToken,
      config.slack.appToken,
      config.slack.signingSecret,
      config.slack.oauth?.clientSecret,
      config.slack.oauth?.stateSecret,
    ],
  });

  let tracing: Tracing | null = null;
  let fakeSlack: FakeSlack | null = null;
  let runtime: Runtime | null = null;
  let sandbox: Sandbox | null = null;
  const stopAll = async () => {
    await sandbox?.close();
    await runtime?.stop();
    await fakeSlack?.close();
    await tracing?.shutdown();
  };
  try {
    if (config.observe.tracing) {
      // Loaded only when asked for: without tracing the SDK is not even in memory.
      const { startTracing } = await import('./ops/tracing.ts');
      tracing = startTracing(config.observe.tracing);
      logger.info({ endpoint: config.observe.tracing.endpoint }, 'tracing on: spans go to the OTLP endpoint');
    }
    if (config.sandbox) {
      fakeSlack = await startFakeSlack({ port: 0 });
      if (config.sandbox.manyWorkspaces) addWorkspacePeople(fakeSlack);
      logger.info({ slackApiUrl: fakeSlack.url }, 'sandbox mode: no Slack credentials, using the local fake Slack');
    }
    // SANDBOX_MANY_WORKSPACES: the bot in many-workspace mode against the fake Slack's "Add to Slack".
    const runConfig =
      fakeSlack && config.sandbox?.manyWorkspaces ? manyWorkspaceSandboxConfig(config, fakeSlack) : config;
    // The sandbox's approval defaults apply unless the operator set a policy or a channel.
    const sandboxApprovals = !config.access.policyFile && !config.access.approvalsChannel;
    runtime = await startRuntime(runConfig, {
      logger,
      tracing,
      ...(fakeSlack
        ? {
            slackApiUrl: fakeSlack.url,
            // Many workspaces: approvers per workspace and no channel for all (each workspace sets its own).
            defaultPolicy: config.sandbox?.manyWorkspaces ? sandboxManyWorkspacesPolicy() : sandboxPolicy(),
            ...(config.sandbox?.manyWorkspaces ? {} : { defaultApprovalsChannel: SANDBOX_APPROVALS_CHANNEL }),
            // Many workspaces: a second tenant of the built-in emulator, so two workspaces can reach two.
            ...(config.sandbox?.manyWorkspaces && !config.api.url ? { emulatorTenants: SANDBOX_EMULATOR_TENANTS } : {}),
          }
        : {}),
    });

    // The sandbox signs what it sends to the bot with the secret the runtime generated for it.
    if (fakeSlack && config.sandbox && runtime.signingSecret) {
      const botOrigin = `http://127.0.0.1:${runtime.slackPort}`;
      if (runConfig.slack.oauth) {
        registerSandboxApp(fakeSlack, botOrigin, runConfig.slack.oauth.clientSecret);
        if (!config.api.url) await moveConnectionsToThisEmulator(runtime, fakeSlack);
        await addFirstWorkspace(runtime, fakeSlack, {
          botOrigin,
          apiKey: runConfig.api.apiKey,
          approvalSettings: sandboxApprovals,
        });
      }
      sandbox = await startSandbox({
        ...(runConfig.slack.oauth ? { installUrl: `${botOrigin}/slack/install` } : {}),
        port: config.sandbox.port,
        fake: fakeSlack,
        botUrl: `http://127.0.0.1:${runtime.slackPort}/slack/events`,
        signingSecret: runtime.signingSecret,
        logger: logger.child({ component: 'sandbox' }),
      });
      const port = new URL(sandbox.url).port;
      logger.info({ ...BANNER, url: sandbox.url }, `Open http://localhost:${port} to try the bot`);
    }
  } catch (err) {
    await stopAll().catch(() => undefined);
    process.stderr.write(`runbook-bot failed to start: ${describeStartupError(err, config)}\n`);
    process.exit(1);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await stopAll();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`runbook-bot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
