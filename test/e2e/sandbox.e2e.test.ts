// The sandbox in a real browser, used as a person would: type /runbook commands, click Run, fill
// the generated form, see field errors, submit, watch the running message turn into the result.
// Screenshots land in test-results/ (gitignored) as artifacts.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotOf } from '../support/element-screenshot.ts';
import { type SandboxHarness, startSandboxHarness } from '../support/sandbox-harness.ts';

const ARTIFACTS = 'test-results/e2e';
const UI_TIMEOUT = 10_000;
/**
 * Screenshots the README shows: written into the repository only with UPDATE_SCREENSHOTS=1 (so a test
 * run leaves the work tree clean); otherwise next to the other artifacts.
 */
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

function modal() {
  return page.locator('#modal');
}

function input(blockId: string) {
  return modal().locator(`.bk-input[data-block-id="${blockId}"]`);
}

describe('sandbox in the browser', () => {
  it('lists runbooks as an ephemeral, rendering API text literally', async () => {
    await type('/runbook list');
    const reply = page.locator('.message.ephemeral').filter({ hasText: 'Runbooks' }).last();
    await expect.poll(() => reply.isVisible(), { timeout: UI_TIMEOUT }).toBe(true);
    await expect.poll(() => reply.textContent()).toContain('Only visible to you');
    // The API's "Check <prod> & "staging" Health" arrives escaped; it must show as text, not markup.
    await expect.poll(() => reply.textContent()).toContain('Check <prod> & "staging" Health');
    expect(await reply.locator('prod').count()).toBe(0);
    expect(await reply.locator('button', { hasText: 'Run' }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}/01-list.png` });
  });

  it('runs a runbook through its form: field error first, then the running message, then the result', async () => {
    await type('/runbook run "Scale Kubernetes Deployment"');
    await modal().waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#modal-title').textContent()).toBe('Run a runbook');
    await input('field_replicas').locator('input').waitFor();

    await input('field_namespace').locator('input').fill('web');
    await input('field_deployment').locator('input').fill('api');
    await input('field_replicas').locator('input').fill('500');
    await input('meta_channel').locator('select').selectOption('C02DEPLOYS');
    await page.locator('#modal-submit').click();

    // The bot answers response_action: errors → the modal stays, the error shows under the field.
    const error = input('field_replicas').locator('.bk-error');
    await error.waitFor({ state: 'visible' });
    expect((await error.textContent())?.length).toBeGreaterThan(0);
    expect(await modal().isVisible()).toBe(true);
    // What was typed survives the refresh.
    expect(await input('field_namespace').locator('input').inputValue()).toBe('web');
    await page.screenshot({ path: `${ARTIFACTS}/02-field-error.png` });

    await input('field_replicas').locator('input').fill('4');
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });

    await page.locator('.nav-item', { hasText: 'deploys' }).click();
    const running = page.locator('#messages > .message').filter({ hasText: 'Scale Kubernetes Deployment' }).last();
    await expect.poll(() => running.textContent(), { timeout: UI_TIMEOUT }).toMatch(/running/i);
    expect(await running.textContent()).toContain('@Alice Adams');
    const execution = [...s.bot.emulator.state.executions.byId.values()].find((e) =>
      JSON.stringify(e).includes('"replicas":4'),
    );
    expect(execution).toBeDefined();
    await page.screenshot({ path: `${ARTIFACTS}/03-running.png` });

    // The watcher sees the run finish on the emulator's clock and edits the same message.
    s.bot.clock.advance(60 * 60_000);
    await expect.poll(() => running.textContent(), { timeout: UI_TIMEOUT }).toMatch(/succeeded/i);
    // The thread: the reply to Alice. The output is a dozen lines: the card shows its tail and Full output the
    // rest, so no file is uploaded for it (only a long output gets one, below).
    await expect
      .poll(() => page.locator('.thread-toggle').last().textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/1 reply/);
    expect(await running.textContent()).toContain('Full output shows all of it');
    await page.locator('.thread-toggle').last().click();
    await expect.poll(() => page.locator('.thread .message').filter({ hasText: 'succeeded' }).count()).toBe(1);
    expect(await page.locator('.thread .file').count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/04-result.png` });
    const card = page.locator('.message').filter({ hasText: 'Started by' }).filter({ hasText: 'Scale Kubernetes' });
    await screenshotOf(card.last(), `${SCREENSHOTS}/result-card.png`);
  });

  it('a long output also goes into the thread as a file', async () => {
    await page.locator('.nav-item', { hasText: 'ops' }).click();
    await type('/runbook run "Collect Kubernetes Pod Logs"');
    await input('field_namespace').locator('input').waitFor();
    await input('field_namespace').locator('input').fill('logs-e2e');
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });
    const running = page.locator('#messages > .message').filter({ hasText: 'Collect Kubernetes Pod Logs' }).last();
    await expect.poll(() => running.textContent(), { timeout: UI_TIMEOUT }).toMatch(/running/i);
    s.bot.clock.advance(60 * 60_000);
    await expect.poll(() => running.textContent(), { timeout: UI_TIMEOUT }).toMatch(/succeeded|failed/i);
    await expect
      .poll(() => running.locator('.thread-toggle').textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/2 replies/);
    await running.locator('.thread-toggle').click();
    const file = running.locator('.thread .file').last();
    await expect.poll(() => file.textContent(), { timeout: UI_TIMEOUT }).toMatch(/collect-kubernetes-pod-logs-.*\.txt/);
    await file.locator('summary').click();
    await expect.poll(() => file.locator('.file-content').textContent()).toContain('Starting runbook');
  });

  it('creates a schedule through the modal (live preset preview) and deletes it after a confirm dialog', async () => {
    const runbook = 'Find Unattached EBS Volumes';
    const ours = () =>
      [...s.bot.emulator.state.schedules.byId.values()].filter((r) => JSON.stringify(r).includes('1-5'));
    expect(ours()).toHaveLength(0);
    await page.locator('.nav-item', { hasText: 'ops' }).click();

    await type(`/runbook schedule "${runbook}"`);
    await input('meta_preset').locator('select').waitFor();
    // The preset select dispatches block_actions; the bot updates the modal in place.
    const before = await modal().textContent();
    await input('meta_preset').locator('select').selectOption('weekdays');
    await expect.poll(() => modal().textContent(), { timeout: UI_TIMEOUT }).not.toBe(before);
    await page.screenshot({ path: `${ARTIFACTS}/05-schedule-modal.png` });
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });
    const saved = page
      .locator('.message.ephemeral')
      .filter({ hasText: `Scheduled ${runbook}` })
      .last();
    await saved.waitFor();
    expect(await saved.textContent()).toContain('1-5');
    expect(ours()).toHaveLength(1);

    const created = ours()[0]!.schedule;

    // Edit: the modal opens prefilled with the weekdays preset; switch to daily and save (PATCH).
    await type(`/runbook schedules "${runbook}"`);
    const row = () => page.locator('.message.ephemeral .bk-section:has-text("1-5") + .bk-actions').last();
    await row().locator('button', { hasText: 'Edit' }).click();
    await expect.poll(() => page.locator('#modal-title').textContent(), { timeout: UI_TIMEOUT }).toBe('Edit schedule');
    await expect.poll(() => input('meta_preset').locator('select').inputValue()).toBe('weekdays');
    const beforeEdit = await modal().textContent();
    await input('meta_preset').locator('select').selectOption('daily');
    await expect.poll(() => modal().textContent(), { timeout: UI_TIMEOUT }).not.toBe(beforeEdit);
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });
    const edited = () => s.bot.emulator.state.schedules.byId.get(created.id)?.schedule.schedule;
    await expect.poll(edited, { timeout: UI_TIMEOUT }).toMatch(/^\d+ \d+ \* \* \*$/);

    await type(`/runbook schedules "${runbook}"`);
    const deleteButton = page
      .locator(`.message.ephemeral .bk-section:has-text("${edited()}") + .bk-actions`)
      .last()
      .locator('button', { hasText: 'Delete' });
    await deleteButton.click();
    // The button carries a confirm object: nothing is sent until the person confirms.
    const dialog = page.locator('#confirm-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.textContent()).toContain('Delete schedule?');
    expect(s.bot.emulator.state.schedules.byId.has(created.id)).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/06-confirm-delete.png` });
    await page.locator('#confirm-ok').click();
    await expect.poll(() => s.bot.emulator.state.schedules.byId.has(created.id), { timeout: UI_TIMEOUT }).toBe(false);
  });

  it('asks for approval, and a second user (the approver) approves the run', async () => {
    await page.locator('.nav-item', { hasText: 'ops' }).click();
    await type('/runbook run "Drain Kubernetes Node"');
    await input('field_node_name').locator('input').waitFor();
    expect(await modal().textContent()).toContain('needs approval');
    await input('field_node_name').locator('input').fill('ip-10-0-12-34');
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });
    const drains = () =>
      [...s.bot.emulator.state.executions.byId.values()].filter((e) => e.params.node_name === 'ip-10-0-12-34');
    expect(drains()).toHaveLength(0);

    const bob = await s.open('U02BOB', 'C03APPROVALS');
    bob.setDefaultTimeout(UI_TIMEOUT);
    const request = bob.locator('.message').filter({ hasText: 'Approval requested' }).last();
    await expect.poll(() => request.textContent(), { timeout: UI_TIMEOUT }).toContain('ip-10-0-12-34');
    await bob.screenshot({ path: `${ARTIFACTS}/07-approval-request.png` });
    await request.locator('button', { hasText: 'Approve' }).click();
    await expect.poll(() => request.textContent(), { timeout: UI_TIMEOUT }).toContain('Approved by');
    await expect.poll(() => drains().length, { timeout: UI_TIMEOUT }).toBe(1);
    expect(drains()[0]!.received.requestId).toBeTruthy();
    await bob.screenshot({ path: `${ARTIFACTS}/08-approved.png` });

    const running = page.locator('#messages > .message').filter({ hasText: 'Drain Kubernetes Node' }).last();
    await expect.poll(() => running.textContent(), { timeout: UI_TIMEOUT }).toMatch(/running|succeeded/i);

    // A second request waits in Bob's App Home, with Approve / Reject there.
    await type('/runbook run "Drain Kubernetes Node"');
    await input('field_node_name').locator('input').waitFor();
    await input('field_node_name').locator('input').fill('ip-10-0-99-99');
    await page.locator('#modal-submit').click();
    await page.locator('#modal-overlay').waitFor({ state: 'hidden' });
    await expect
      .poll(() => page.locator('.message.ephemeral').last().textContent(), { timeout: UI_TIMEOUT })
      .toContain('your run is waiting for it');
    await bob.locator('.nav-item', { hasText: 'Home' }).click();
    const home = bob.locator('.home');
    await expect.poll(() => home.textContent(), { timeout: UI_TIMEOUT }).toContain('Waiting for your approval');
    await expect.poll(() => home.textContent(), { timeout: UI_TIMEOUT }).toContain('Drain Kubernetes Node');
    expect(await home.locator('button', { hasText: 'Approve' }).count()).toBeGreaterThan(0);
    expect(await home.textContent()).toContain('Your recent runs');
    await bob.screenshot({ path: `${SCREENSHOTS}/app-home.png` });
    await bob.close();
  });

  it('shows the App Home a user opens, and another user sees their own view of the channel', async () => {
    await page.locator('.nav-item', { hasText: 'Home' }).click();
    await expect.poll(() => page.locator('.home').count(), { timeout: UI_TIMEOUT }).toBe(1);
    expect((await page.locator('.home').textContent())?.length).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}/07-home.png` });

    // Bob does not see Alice's ephemerals in #ops, but does see channel messages.
    const bob = await s.open('U02BOB', 'C01OPS');
    try {
      await bob.locator('#channel-title').filter({ hasText: 'ops' }).waitFor();
      await bob.locator('#messages').waitFor();
      expect(await bob.locator('.message.ephemeral').count()).toBe(0);
      expect(await bob.locator('#user-switcher').inputValue()).toBe('U02BOB');
    } finally {
      await bob.close();
    }
  });
});
