// The health chart and the forecast in a real browser, as a person sees them in the sandbox:
// `/runbook schedules --next 24h` lists the runs due, and the README's screenshots of both are
// taken here (written into the repository only with UPDATE_SCREENSHOTS=1).
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const ARTIFACTS = 'test-results/e2e';
const UI_TIMEOUT = 15_000;
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? 'test/e2e/screenshots' : ARTIFACTS;

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
    await reply.screenshot({ path: `${SCREENSHOTS}/forecast.png` });
  });
});
