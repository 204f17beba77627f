// The bot harness plus the browser sandbox on top: emulator (manual clock) → runtime (Bolt over
// HTTP, watcher) → fake Slack → sandbox server, all in-process, and a Chromium (browser.ts) driven by
// playwright-core as the person. Launch failures are errors, never skips: a browser test that
// silently does nothing would pass without testing anything.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../../src/logger.ts';
import { SANDBOX_APPROVALS_CHANNEL, sandboxPolicy } from '../../src/sandbox/sandbox-defaults.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { type Harness, type HarnessOptions, SIGNING_SECRET, startHarness } from './bot-harness.ts';
import { launchChromium } from './browser.ts';

export interface SandboxHarness {
  bot: Harness;
  sandbox: Sandbox;
  browser: Browser;
  /** A page opened as `user`, in `channel`. */
  open(user: string, channel: string): Promise<Page>;
  stop(): Promise<void>;
}

/** The emulator's month of history ending at the harness clock's start, as `npm start` has it. */
export async function startSandboxHarness(
  options: Pick<HarnessOptions, 'emulator' | 'clockStart'> = {},
): Promise<SandboxHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sandbox-e2e-'));
  const bot = await startHarness({
    ...options,
    env: {
      DATA_DIR: dataDir,
      // Quick watcher ticks so a finished run shows up soon after the clock is advanced.
      WATCH_FIRST_CHECK_MS: '30',
      WATCH_MAX_CHECK_MS: '150',
      WATCH_TICK_MS: '20',
      WATCH_SLACK_POST_INTERVAL_MS: '0',
      WATCH_SLACK_UPDATE_INTERVAL_MS: '0',
    },
    // The same demo setup as `npm start` in sandbox mode: Bob approves, requests go to #approvals.
    runtime: { defaultPolicy: sandboxPolicy(), defaultApprovalsChannel: SANDBOX_APPROVALS_CHANNEL },
  });
  let sandbox: Sandbox | undefined;
  let browser: Browser | undefined;
  try {
    sandbox = await startSandbox({
      port: 0,
      fake: bot.fake,
      botUrl: bot.botUrl,
      signingSecret: SIGNING_SECRET,
      logger: createLogger({ level: 'silent' }),
    });
    browser = await launchChromium();
  } catch (err) {
    await sandbox?.close();
    await bot.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const started = { sandbox, browser };
  return {
    bot,
    sandbox,
    browser,
    async open(user, channel) {
      const page = await started.browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${started.sandbox.url}/?user=${user}&channel=${channel}`);
      return page;
    },
    async stop() {
      await started.browser.close();
      await started.sandbox.close();
      await bot.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
