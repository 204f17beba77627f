// The entry points beyond /runbook in a real browser: a workflow's "Run a runbook" step started from
// the Workflows panel (the step ends with the run's outputs), @runbook-bot typed in a thread, and the
// message shortcut from a message's ⋯ menu. UPDATE_SCREENSHOTS=1 refreshes the README's screenshot.
import { copyFileSync, mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const ARTIFACTS = 'test-results/e2e';
const UI_TIMEOUT = 10_000;

let s: SandboxHarness;
let page: Page;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  s = await startSandboxHarness();
  page = await s.open('U01ALICE', 'C01OPS');
  page.setDefaultTimeout(UI_TIMEOUT);
}, 60_000);

afterAll(async () => {
  await s?.stop();
});

describe('entry points in the sandbox', () => {
  it('a workflow runs the step; it ends with the run outputs once the run ends', async () => {
    await page.locator('.nav-item', { hasText: 'Workflows' }).click();
    const form = page.locator('#workflow-form');
    await form.waitFor();
    await form.locator('input[name="runbook"]').fill('Find Crashlooping Pods');
    await form.locator('textarea[name="inputs"]').fill('{"namespace": "payments"}');
    await form.locator('select[name="channel"]').selectOption('C02DEPLOYS');
    await form.locator('button[type="submit"]').click();
    const run = page.locator('.wf-run').first();
    await expect.poll(() => run.textContent(), { timeout: UI_TIMEOUT }).toContain('running');
    // The run is going: its card is in #deploys. Let the emulator's clock run it to the end.
    await expect
      .poll(() => (s.bot.fake.state.messages.C02DEPLOYS ?? []).length, { timeout: UI_TIMEOUT })
      .toBeGreaterThan(0);
    s.bot.clock.advance(60 * 60_000);
    await expect.poll(() => run.textContent(), { timeout: UI_TIMEOUT }).toContain('completed');
    expect(await run.textContent()).toContain('"status": "succeeded"');
    expect(await run.textContent()).toContain('card_link');
    await page.screenshot({ path: `${ARTIFACTS}/20-workflow-step.png` });
    if (process.env.UPDATE_SCREENSHOTS) {
      copyFileSync(`${ARTIFACTS}/20-workflow-step.png`, 'test/e2e/screenshots/workflow-step.png');
    }
  });

  it('@runbook-bot typed in a thread is answered in that thread', async () => {
    await page.locator('.nav-item', { hasText: 'ops' }).first().click();
    await page.locator('#composer-input').fill('incident: payments pods restarting');
    await page.locator('#composer-input').press('Enter');
    const root = page.locator('.message').filter({ hasText: 'incident: payments pods restarting' }).last();
    await root.waitFor();
    await root.locator('.tool-button', { hasText: 'Reply' }).click();
    await page.locator('#composer-input').fill('@runbook-bot help');
    await page.locator('#composer-input').press('Enter');
    await expect
      .poll(
        () =>
          s.bot.fake.state.ephemerals.some((e) => e.thread_ts && JSON.stringify(e.blocks).includes('/runbook alias')),
        { timeout: UI_TIMEOUT },
      )
      .toBe(true);
    // The private answer shows in that thread, under the message, not at the bottom of the channel.
    const answer = root.locator('.thread .message.ephemeral').filter({ hasText: '/runbook alias' });
    await expect.poll(() => answer.count(), { timeout: UI_TIMEOUT }).toBeGreaterThan(0);
    expect(await page.locator('#messages > .message.ephemeral').filter({ hasText: '/runbook alias' }).count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/21-mention.png` });
  });

  it('the message shortcut opens the runbook picker', async () => {
    const message = page.locator('.message').filter({ hasText: 'incident: payments pods restarting' }).last();
    await message.locator('.tool-button', { hasText: '⋯' }).first().click();
    await page.locator('.tool-menu-item', { hasText: 'Run a runbook…' }).click();
    await page.locator('#modal').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#modal-title').textContent()).toBe('Run a runbook');
    await page.screenshot({ path: `${ARTIFACTS}/22-message-shortcut.png` });
    await page.locator('#modal-close').click();
  });
});
