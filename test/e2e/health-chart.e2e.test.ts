// The health chart and the forecast in a real browser, as a person sees them in the sandbox:
// `/runbook health <runbook>` answers privately and the chart (a PNG the browser loads from the
// sandbox, shown through `slack_file`) arrives in the DM with the bot; `/runbook schedules --next 24h`
// lists the runs due. The README's screenshots of both are taken here (written into the repository
// only with UPDATE_SCREENSHOTS=1).
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_PIXELS } from '../../src/health/chart.ts';
import { screenshotOf } from '../support/element-screenshot.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const ARTIFACTS = 'test-results/e2e';
const UI_TIMEOUT = 15_000;
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? 'test/e2e/screenshots' : ARTIFACTS;

let s: SandboxHarness;
let page: Page;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Health counts 30 days back from the bot's clock: the emulator's month of runs ends at the harness's now.
  s = await startSandboxHarness({ emulator: { recentHistory: true }, clockStart: Date.now() });
  page = await s.open('U01ALICE', 'C01OPS');
  page.setDefaultTimeout(UI_TIMEOUT);
}, 60_000);

afterAll(async () => {
  await s?.stop();
});

async function type(text: string) {
  await page.locator('#composer-input').fill(text);
  await page.locator('#composer-input').press('Enter');
}

/** A schedule made in the API directly (as another client would), for a fuller forecast. */
function schedule(runbookName: string, cron: string, params: Record<string, unknown> = {}) {
  const runbook = [...s.bot.emulator.state.workflows.byId.values()].find((w) => w.workflow.name === runbookName);
  expect(runbook).toBeDefined();
  s.bot.emulator.state.createSchedule({
    runbookId: runbook!.workflow.id,
    runbookName,
    proxyId: 'proxy-prod',
    params: JSON.stringify(params),
    schedule: cron,
  });
}

describe('forecast in the browser', () => {
  it('lists the runs due in the next 24 hours, flagging overlapping runs of one runbook', async () => {
    schedule('Rotate IAM Access Keys', '30 2 * * *');
    schedule('Restart Kubernetes Deployment', '0 */8 * * *', { namespace: 'web', deployment: 'api' });
    schedule('Postgres Vacuum Analyze', '10 5 * * *', { database: 'orders' });
    await type('/runbook schedules --next 24h');
    const reply = page.locator('.message.ephemeral').last();
    await expect.poll(() => reply.textContent(), { timeout: UI_TIMEOUT }).toMatch(/next 24 hours/i);
    expect(await reply.textContent()).toContain('Restart Kubernetes Deployment');
    expect(await reply.textContent()).toMatch(/overlap/i);
    await screenshotOf(reply, `${SCREENSHOTS}/forecast.png`);
  });
});

describe('health chart in the browser', () => {
  it('answers the numbers privately and shows the chart in the DM with the bot', async () => {
    await page.locator('.nav-item', { hasText: 'ops' }).first().click();
    await type('/runbook health "Rotate IAM Access Keys"');
    const answer = page.locator('.message.ephemeral').filter({ hasText: 'health over the last 30 days' }).last();
    await expect
      .poll(() => answer.textContent(), { timeout: UI_TIMEOUT })
      .toContain('on its way to your direct messages');

    await page.locator('#dm-list .nav-item').first().click();
    const chart = page
      .locator('#messages > .message')
      .filter({ has: page.locator('.bk-image img') })
      .last();
    await chart.waitFor({ state: 'visible' });
    const img = chart.locator('.bk-image img');
    // The browser really loaded the PNG the bot uploaded (not a broken image).
    await expect
      .poll(() => img.evaluate((e) => (e as { complete: boolean; naturalWidth: number }).naturalWidth))
      .toBe(CHART_PIXELS.width);
    expect(await img.getAttribute('src')).toMatch(/^\/files\/F[A-Z0-9]+$/);
    expect(await chart.textContent()).toContain('Success rate');
    // Tall enough for the whole message in one picture.
    await page.setViewportSize({ width: 1100, height: 1300 });
    await screenshotOf(chart, `${SCREENSHOTS}/health-chart.png`);
  });
});
