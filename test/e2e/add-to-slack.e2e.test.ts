// The many-workspace sandbox in a real browser: a person of the second workspace sees the bot is not
// there (Slack knows no /runbook there, and there is no Home), clicks Add to Slack in the sidebar, picks
// the workspace on (fake) Slack's consent page, lands on the bot's "installed" page, and back in the
// sandbox the workspace shows the bot added and /runbook answers there — through the real Bolt pipeline,
// on that workspace's own token. Whoever added it connects it in Home with the emulator's second
// tenant's key, removes the app from the sidebar and adds it again, finding the connection kept.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.ts';
import { SANDBOX_EMULATOR_TENANTS, SANDBOX_SECOND_TENANT_KEY } from '../../src/sandbox/sandbox-workspaces.ts';
import { launchChromium } from '../support/browser.ts';
import { type OAuthHarness, SIGNING_SECRET, startOAuthHarness } from '../support/oauth-harness.ts';

const UI_TIMEOUT = 15_000;

let h: OAuthHarness;
let sandbox: Sandbox;
let browser: Browser;

beforeAll(async () => {
  // The emulator serves the sandbox's second tenant too, as `npm start` does with SANDBOX_MANY_WORKSPACES.
  h = await startOAuthHarness({ tenants: SANDBOX_EMULATOR_TENANTS });
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

async function openAs(user: string, channel = 'C01OPS'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  await page.goto(`${sandbox.url}/?user=${user}&channel=${channel}`);
  await expect.poll(() => page.locator('#workspace-list').isVisible()).toBe(true);
  return { context, page };
}

async function type(page: Page, text: string): Promise<string> {
  const before = await page.locator('.message.ephemeral').count();
  await page.locator('#composer-input').fill(text);
  await page.locator('#composer-input').press('Enter');
  await expect.poll(() => page.locator('.message.ephemeral').count(), { timeout: UI_TIMEOUT }).toBeGreaterThan(before);
  return (await page.locator('.message.ephemeral').last().textContent()) ?? '';
}

/** Add to Slack in the sidebar's `item`, then on Slack's consent page `target`: the bot's page it ends on. */
async function addToSlack(context: BrowserContext, item: Locator, target: string): Promise<Page> {
  const [install] = await Promise.all([context.waitForEvent('page'), item.locator('a.add-to-slack').click()]);
  await install.waitForLoadState();
  // The bot's own page, then Slack's consent page: pick the workspace or org.
  await install.locator('#add-to-slack').click();
  await install.locator(`a[data-install-to="${target}"]`).click();
  await expect
    .poll(() => install.locator('h1').textContent(), { timeout: UI_TIMEOUT })
    .toBe('runbook-bot is installed');
  return install;
}

describe('Add to Slack in the sandbox', () => {
  it('a workspace the bot is not in: Slack knows no /runbook there, no mention reaches the bot, no Home', async () => {
    const { context, page } = await openAs('U11SAM');
    const botCallsBefore = h.fake.state.calls.length;
    const answer = await type(page, '/runbook list');
    expect(answer).toContain('Slackbot');
    expect(answer).toContain('/runbook is not a valid command in Second workspace');
    expect(answer).toContain('click Add to Slack next to it under Workspaces');
    await page.locator('#app-list li', { hasText: 'Home' }).click();
    await expect
      .poll(() => page.locator('#messages').textContent())
      .toContain('Runbook Bot is not in Second workspace yet: click Add to Slack next to it under Workspaces');
    // Nothing went to the bot: it made no Web API call for any of it.
    expect(h.fake.state.calls.slice(botCallsBefore).filter((c) => c.method !== 'auth.test')).toEqual([]);
    await context.close();
  });

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
    // Another organisation's workspace is not Sam's to add the app to, as in Slack.
    const acme = page.locator('#workspace-list li[data-workspace="T0GRIDA"]');
    expect(await acme.textContent()).toContain('not added');
    expect(await acme.locator('a.add-to-slack').count()).toBe(0);

    const install = await addToSlack(context, second, 'T0SECOND');
    expect(await install.locator('body').textContent()).toContain('Second workspace');

    await expect.poll(() => second.textContent(), { timeout: UI_TIMEOUT }).toContain('✓ added');
    const reply = await type(page, '/runbook help');
    expect(reply).toContain('Runbook Bot');
    expect(reply).toContain('schedules');
    const record = await h.runtime.store.installations.get('T0SECOND');
    expect(record?.sealed).not.toBeNull();
    await context.close();
  });

  it('whoever added it (not an admin) connects it in Home, to the second tenant, with a refused key first', async () => {
    // Sam added the bot to his workspace above: Slack's consent page installed as him, not the sandbox's first person.
    const grants = [...h.fake.oauth.grants.values()].filter((g) => g.installationId === 'T0SECOND');
    expect(grants.map((g) => g.installerUserId)).toEqual(['U11SAM']);
    const { context, page } = await openAs('U11SAM');
    await page.locator('#app-list li', { hasText: 'Home' }).click();
    // He may connect it (he installed it): Home points him at Connect.
    await expect.poll(() => page.locator('#messages').textContent()).toContain('press Connect below');
    await page.locator('#messages button', { hasText: 'Connect' }).click();
    const key = page.locator('#modal-body input').first();
    await key.fill('not-a-key-of-any-tenant');
    await page.locator('#modal-submit').click();
    await expect.poll(() => page.locator('#modal-body').textContent()).toContain('refused this key (HTTP 401)');
    await key.fill(` ${SANDBOX_SECOND_TENANT_KEY} `);
    await page.locator('#modal-submit').click();
    await expect.poll(() => page.locator('#modal-body').textContent()).toContain('Connected to');
    await page.locator('#modal-x').click();
    await expect.poll(() => page.locator('#messages').textContent()).toContain('by @Sam Second');
    await page.locator('#channel-list li', { hasText: 'ops' }).first().click();
    // The second tenant's own, smaller catalog.
    expect(await type(page, '/runbook list')).toContain('10 runbooks');
    await context.close();
  });

  it('Remove in the sidebar uninstalls (the bot is told, its tokens die); Add to Slack again finds the connection', async () => {
    const { context, page } = await openAs('U11SAM');
    const second = page.locator('#workspace-list li[data-workspace="T0SECOND"]');
    await second.locator('button.remove-app').click();
    expect(await page.locator('#confirm-dialog').textContent()).toContain('Remove Runbook Bot from Second workspace?');
    await page.locator('#confirm-ok').click();
    await expect.poll(() => second.textContent(), { timeout: UI_TIMEOUT }).toContain('Add to Slack');
    // The bot heard app_uninstalled and tokens_revoked: the tokens are gone from the store.
    await expect.poll(async () => (await h.runtime.store.installations.get('T0SECOND'))?.sealed ?? null).toBeNull();
    expect(await type(page, '/runbook list')).toContain('/runbook is not a valid command in Second workspace');

    await addToSlack(context, second, 'T0SECOND');
    await expect.poll(() => second.textContent(), { timeout: UI_TIMEOUT }).toContain('✓ added');
    expect(await type(page, '/runbook list')).toContain('10 runbooks');
    await context.close();
  });

  it('a Grid org added org-wide serves both of its workspaces', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${sandbox.url}/?user=U21EVA&channel=C01OPS`);
    const eu = page.locator('#workspace-list li[data-workspace="T0GRIDA"]');
    await addToSlack(context, eu, 'E0ACMEGRID');
    await expect.poll(() => eu.textContent(), { timeout: UI_TIMEOUT }).toContain('✓ added');
    await expect
      .poll(() => page.locator('#workspace-list li[data-workspace="T0GRIDB"]').textContent())
      .toContain('✓ added');
    expect((await h.runtime.store.installations.get('E0ACMEGRID'))?.isEnterpriseInstall).toBe(true);
    // Removing it here removes the org's installation: the dialog says so (and Cancel keeps it).
    await eu.locator('button.remove-app').click();
    expect(await page.locator('#confirm-title').textContent()).toBe(
      'Remove Runbook Bot from Acme (Enterprise Grid) (every workspace)?',
    );
    expect(await page.locator('#confirm-text').textContent()).toContain('What it keeps for the org');
    await page.locator('#confirm-deny').click();
    expect((await h.runtime.store.installations.get('E0ACMEGRID'))?.sealed).not.toBeNull();
    await context.close();
  });
});
