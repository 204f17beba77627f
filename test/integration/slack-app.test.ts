// The bot end to end through the real Bolt pipeline: signed requests in, Slack Web API calls out
// (to the fake Slack), Runbook API calls to the emulator. Assertions are on what Slack was asked
// to show and on the emulator's state.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formRequest, sendToBot, slashCommandBody } from '../../src/sandbox/slack-requests.ts';
import { ACTIONS, BLOCKS, SHORTCUTS } from '../../src/slack/kit/ids.ts';
import { checkBlocks, checkView } from '../../src/slack/kit/limits.ts';
import { createMetadataSeal } from '../../src/slack/kit/metadata-seal.ts';
import {
  BOT_TOKEN,
  ephemeralContaining,
  type Harness,
  modalContaining,
  SIGNING_SECRET,
  startHarness,
  waitFor,
} from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});
afterEach(() => {
  h.fake.setFaults({});
  h.emulator.setFaults({ latencyMs: 0, errorRate: 0, rateLimitRate: 0, dropRate: 0 });
});

function executions() {
  return [...h.emulator.state.executions.byId.values()];
}

describe('/runbook help and parsing', () => {
  it('bare /runbook answers with help listing every subcommand', async () => {
    const res = await h.user().command('', 'C01OPS');
    expect(res.status).toBe(200);
    const reply = await waitFor(() => ephemeralContaining(h.fake, '/runbook list'), 'help');
    for (const sub of ['list', 'show', 'run', 'schedules', 'schedule', 'executions', 'status']) {
      expect(JSON.stringify(reply.blocks)).toContain(`/runbook ${sub}`);
    }
    expect(checkBlocks(reply.blocks ?? [], 'message')).toEqual([]);
  });

  it('an unknown subcommand answers with did-you-mean and help', async () => {
    await h.user().command('lsit kubernetes', 'C01OPS');
    const reply = await waitFor(
      () => ephemeralContaining(h.fake, 'is neither a /runbook subcommand nor an alias in this channel'),
      'error',
    );
    expect(JSON.stringify(reply.blocks)).toContain('Did you mean `list`?');
  });

  it('a bad flag value answers with the subcommand help', async () => {
    await h.user().command('executions --status broken', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'must be one of'), 'flag error');
    expect(JSON.stringify(reply.blocks)).toContain('/runbook executions [runbook]');
  });
});

describe('request signatures', () => {
  it('rejects tampered and stale requests; accepts fresh signed ones', async () => {
    const body = formRequest(
      slashCommandBody({
        command: '/runbook',
        text: 'help',
        userId: 'U01ALICE',
        channelId: 'C01OPS',
        teamId: 'T0SANDBOX',
        triggerId: h.fake.newTriggerId('U01ALICE'),
        responseUrl: h.fake.newResponseUrl({ channel: 'C01OPS', user: 'U01ALICE' }),
      }),
    );
    expect((await sendToBot(h.botUrl, SIGNING_SECRET, body, { tamper: true })).status).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await sendToBot(h.botUrl, SIGNING_SECRET, body, { timestampSeconds: sixMinutesAgo })).status).toBe(401);
    expect((await sendToBot(h.botUrl, 'wrong-secret', body)).status).toBe(401);
    expect((await sendToBot(h.botUrl, SIGNING_SECRET, body)).status).toBe(200);
  });
});

describe('/runbook list and show', () => {
  it('lists runbooks in pages with Run/Schedule/Details and pages forward', async () => {
    await h.user().command('list', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'page 1 of'), 'list');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain('Audit GCP Service Account Keys');
    expect(text).toContain(ACTIONS.runbookRun);
    expect(text).toContain(ACTIONS.runbookDetails);
    expect(checkBlocks(reply.blocks ?? [], 'message')).toEqual([]);
    const before = h.fake.state.responseUrlPosts.length;
    await h.user().act({ kind: 'ephemeral', ephemeral: reply }, `${ACTIONS.listPage}_next`);
    await waitFor(() => h.fake.state.responseUrlPosts.length > before, 'next page');
    const next = h.fake.state.responseUrlPosts.at(-1)!;
    expect(next.body.replace_original).toBe(true);
    expect(JSON.stringify(next.body.blocks)).toContain('page 2 of');
  });

  it('escapes runbook names from the API so they cannot ping', async () => {
    await h.user().command('list staging', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'Health'), 'list');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain('Check &lt;prod&gt; &amp; \\"staging\\" Health');
    expect(text).not.toContain('<prod>');
  });

  it('show gives details with inputs, and an ambiguous name gives a pick list', async () => {
    await h.user().command('show "scale kubernetes deployment"', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, '*Inputs*'), 'details');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain('Replicas');
    expect(text).toContain('required');
    await h.user().command('show kubernetes', 'C01OPS');
    const pick = await waitFor(() => ephemeralContaining(h.fake, 'Several runbooks match'), 'pick list');
    expect(JSON.stringify(pick.blocks)).toContain(ACTIONS.pickRunbook);
  });

  it('a name that matches nothing offers the closest names', async () => {
    await h.user().command('show "restart kubernetes deploymnt x"', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'No runbook matches'), 'no match');
    expect(JSON.stringify(reply.blocks)).toContain('Restart Kubernetes Deployment');
  });
});

describe('run modal', () => {
  async function openRunFor(name: string) {
    await h.user().command(`run "${name}"`, 'C01OPS');
    return waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
  }

  it('opens a form from the schema, refuses invalid input on the field, runs valid input', async () => {
    const modal = await openRunFor('Scale Kubernetes Deployment');
    expect(checkView(modal.view)).toEqual([]);
    const blocks = JSON.stringify(modal.view.blocks);
    expect(blocks).toContain('field_replicas');
    expect(blocks).toContain('number_input');

    const runsBefore = executions().length;
    const invalid = await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '500' } },
    });
    expect(invalid.status).toBe(200);
    const answer = invalid.json as { response_action: string; errors: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(Object.keys(answer.errors)).toEqual(['field_replicas']);
    expect(executions().length).toBe(runsBefore);

    const valid = await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'web' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'api' } },
      field_replicas: { value: { type: 'number_input', value: '4' } },
    });
    expect(valid.status).toBe(200);
    const message = await waitFor(
      () => h.fake.state.messages.C02DEPLOYS?.find((m) => m.text.includes('Scale Kubernetes Deployment is running')),
      'running message',
    );
    const run = await waitFor(() => executions().find((e) => e.params.replicas === 4), 'execution');
    expect(JSON.stringify(message.blocks)).toContain('<@U01ALICE>');
    expect(JSON.stringify(message.blocks)).toContain(run.id);
    expect(run.received.userId).toBe('U01ALICE');
    expect(checkBlocks(message.blocks ?? [], 'message')).toEqual([]);
  });

  it('opens the loading view within the trigger window when the API answers after 5 s', async () => {
    h.emulator.setFaults({ latencyMs: 5_000 });
    h.runtime.deps.catalog.invalidate();
    const started = Date.now();
    await h.user().command('run "Postgres Vacuum Analyze"', 'C01OPS');
    // The fake Slack refuses views.open after 3 s with expired_trigger_id; a successful open proves the window held.
    const open = await waitFor(
      () => h.fake.state.calls.find((c) => c.method === 'views.open' && c.at >= started),
      'views.open',
    );
    expect(open.ok).toBe(true);
    expect(JSON.stringify(open.args)).toContain('Loading');
    // …and the form replaces the loading view once the slow API answers.
    const filled = await waitFor(
      () =>
        h.fake.state.calls.find(
          (c) => c.method === 'views.update' && c.at >= started && JSON.stringify(c.args).includes('meta_proxy'),
        ),
      'the form after the slow API',
      15_000,
    );
    expect(filled.ok).toBe(true);
    h.emulator.setFaults({ latencyMs: 0 });
  });

  it("a submission that cannot be checked within Slack's 3 s starts nothing and says so", async () => {
    await h.user().command('run "Scale Kubernetes Deployment"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'run modal');
    // A runbook the catalog has not seen yet must be fetched, and the API now takes 5 s.
    const unknown = [...h.emulator.state.workflows.byId.values()].find(
      (w) => w.workflow.name === 'Restart ECS Service',
    )!;
    const seal = createMetadataSeal(BOT_TOKEN);
    h.fake.state.views[modal.id]!.view.private_metadata = seal.seal(
      JSON.stringify({ r: `${unknown.workflow.id}`, c: 'C01OPS' }),
    );
    const catalogGet = h.runtime.deps.catalog.get.bind(h.runtime.deps.catalog);
    h.runtime.deps.catalog.get = async () => null;
    h.emulator.setFaults({ latencyMs: 5_000 });
    const before = h.emulator.state.executions.byId.size;
    try {
      const res = await h.user().submit(modal.id, {});
      expect(JSON.stringify(res.json)).toContain('took too long, so nothing was started');
      await new Promise((r) => setTimeout(r, 3_000));
      expect(h.emulator.state.executions.byId.size).toBe(before);
    } finally {
      h.runtime.deps.catalog.get = catalogGet;
      h.emulator.setFaults({ latencyMs: 0 });
    }
  });

  it('the runbook picker offers matches as you type', async () => {
    await h.user().shortcut(SHORTCUTS.runRunbook);
    const modal = await waitFor(() => modalContaining(h, BLOCKS.runbookPicker), 'picker modal');
    const res = await h.user().suggest(modal.id, ACTIONS.runbookPicker, BLOCKS.runbookPicker, 'postgres');
    const options = (res.json as { options: Array<{ text: { text: string } }> }).options;
    expect(options.map((o) => o.text.text)).toContain('Postgres Vacuum Analyze');
    expect(options.length).toBeGreaterThan(0);
    expect(options.every((o) => o.text.text.toLowerCase().includes('postgres'))).toBe(true);
  });

  it('a disabled runbook is refused with the reason', async () => {
    await h.user().command('run "Legacy Cron Cleanup"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'cannot be run'), 'refusal');
    expect(modal.view.submit).toBeUndefined();
  });

  it('when the API is down the person gets one clear sentence with the request id', async () => {
    h.emulator.setFaults({ errorRate: 1, errorStatuses: [503] });
    await h.user().command('show "Postgres Vacuum Analyze"', 'C01OPS');
    const reply = await waitFor(() => ephemeralContaining(h.fake, 'failed.'), 'error reply');
    expect(reply.text).toMatch(/\(request [0-9a-f-]{8,}\)/);
    expect(reply.text).not.toMatch(/at .*\.ts:\d+/);
  });
});
