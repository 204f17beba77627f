// The many-workspace sandbox in a real browser: a person of the second workspace sees the bot is not
// there, clicks Add to Slack in the sidebar, picks the workspace on (fake) Slack's consent page, lands on
// the bot's "installed" page, and back in the sandbox the workspace shows the bot added and /runbook
// answers there — through the real Bolt pipeline, on that workspace's own token.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { launchChromium } from '../support/browser.ts';
import { type OAuthHarness, SIGNING_SECRET, startOAuthHarness } from '../support/oauth-harness.ts';

const UI_TIMEOUT = 15_000;

let h: OAuthHarness;
let sandbox: Sandbox;
let browser: Browser;

beforeAll(async () => {
  h = await startOAuthHarness();
  // The first workspace is added at start, as the sandbox does.
  expect((await h.install('T0SANDBOX')).status).toBe(200);
  sandbox = await startSandbox({
    port: 0,
    fake: h.fake,
    botUrl: `${h.origin}/slack/events`,
    signingSecret: SIGNING_SECRET,
    logger: createLogger({ level: 'silent' }),
    installUrl: `${h.origin}/slack/install`,
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await h?.stop();
});

describe('Add to Slack in the sandbox', () => {
  it('adds the bot to the second workspace from the sidebar, and /runbook then answers there', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${sandbox.url}/?user=U11SAM&channel=C01OPS`);
    await expect.poll(() => page.locator('#workspace-name').textContent()).toBe('Second workspace');
    const second = page.locator('#workspace-list li[data-workspace="T0SECOND"]');
    await expect.poll(() => second.textContent()).toContain('Add to Slack');
    const first = page.locator('#workspace-list li[data-workspace="T0SANDBOX"]');
    await expect.poll(() => first.textContent()).toContain('✓ added');

    const [install] = await Promise.all([context.waitForEvent('page'), second.locator('a.add-to-slack').click()]);
    await install.waitForLoadState();
    // The bot's own page, then Slack's consent page: pick the second workspace.
    await install.locator('#add-to-slack').click();
    await install.locator('a[data-install-to="T0SECOND"]').click();
    await expect
      .poll(() => install.locator('h1').textContent(), { timeout: UI_TIMEOUT })
      .toBe('runbook-bot is installed');
    expect(await install.locator('body').textContent()).toContain('Second workspace');

    await expect.poll(() => second.textContent(), { timeout: UI_TIMEOUT }).toContain('✓ added');
    await page.locator('#composer-input').fill('/runbook help');
    await page.locator('#composer-input').press('Enter');
    const reply = page.locator('.message.ephemeral').last();
    await expect.poll(() => reply.textContent(), { timeout: UI_TIMEOUT }).toContain('Only visible to you');
    expect(await reply.textContent()).toContain('schedules');
    const record = await h.runtime.store.installations.get('T0SECOND');
    expect(record?.sealed).not.toBeNull();
    await context.close();
  });

  it('a Grid org added org-wide serves both of its workspaces', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${sandbox.url}/?user=U21EVA&channel=C01OPS`);
    const eu = page.locator('#workspace-list li[data-workspace="T0GRIDA"]');
    const [install] = await Promise.all([context.waitForEvent('page'), eu.locator('a.add-to-slack').click()]);
    await install.locator('#add-to-slack').click();
    await install.locator('a[data-install-to="E0ACMEGRID"]').click();
    await expect
      .poll(() => install.locator('h1').textContent(), { timeout: UI_TIMEOUT })
      .toBe('runbook-bot is installed');
    await expect.poll(() => eu.textContent(), { timeout: UI_TIMEOUT }).toContain('✓ added');
    await expect
      .poll(() => page.locator('#workspace-list li[data-workspace="T0GRIDB"]').textContent())
      .toContain('✓ added');
    expect((await h.runtime.store.installations.get('E0ACMEGRID'))?.isEnterpriseInstall).toBe(true);
    await context.close();
  });
});
