// What a new user hit in the sandbox (issue 22), end to end through the real Bolt pipeline: where a
// started run went, "only mine" counted as theirs, aliases not replaced silently, proxies named,
// search that suggests, quorum wording, labels as the form shows them, time zones, filter buttons.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral, FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { mrkdwnTexts } from '../support/block-texts.ts';
import { type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

const POLICY = `
approvers: { users: [U02BOB, U03CAROL] }
quorum: { approvals: 2 }
`;

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'new-user-'));
  writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
  h = await startHarness({ env: { POLICY_FILE: path.join(dir, 'policy.yaml'), APPROVALS_CHANNEL: 'C03APPROVALS' } });
});
afterAll(async () => {
  await h.stop();
});

const SCALE = 'Scale Kubernetes Deployment';
const textOf = (m: { blocks?: unknown[] | undefined }) => mrkdwnTexts((m.blocks ?? []) as never).join('\n');
const cardOf = (channel: string, executionId: string) =>
  (h.fake.state.messages[channel] ?? []).find((m: FakeMessage) => JSON.stringify(m.blocks).includes(executionId));
const executionsOf = (name: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.workflowName === name);
const paramsOf = (e: { received: { params?: unknown } }) => JSON.parse(String(e.received.params ?? '{}'));
const latestEphemeral = (needle: string, user = 'U01ALICE', since = 0): FakeEphemeral | undefined =>
  h.fake.state.ephemerals
    .slice(since)
    .reverse()
    .find(
      (e) => e.user === user && !e.deleted && (e.text.includes(needle) || JSON.stringify(e.blocks).includes(needle)),
    );
const permalinkOf = (channel: string, ts: string) =>
  new RegExp(`<https://[^|>]+/archives/${channel}/p${ts.replace('.', '')}\\|open it>`);

describe('where did my run go', () => {
  it('the --now "started" answer names where the card is and links it', async () => {
    await h.user().command(`alias add scale-where "${SCALE}" namespace=prod deployment=where --to #deploys`, 'C01OPS');
    await waitFor(() => latestEphemeral('Alias `scale-where` added'), 'alias');
    await h.user().command('scale-where replicas=2 --now', 'C01OPS');
    const confirm = await waitFor(() => latestEphemeral(ACTIONS.confirmRun), 'confirmation');
    await h.user().act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'where'), 'run');
    const card = await waitFor(() => cardOf('C02DEPLOYS', run.id), 'card in #deploys');
    const started = await waitFor(() => latestEphemeral('started.'), 'started answer');
    expect(textOf(started)).toMatch(
      /:rocket: \*Scale Kubernetes Deployment\* started\. Its live card is in <#C02DEPLOYS>: /,
    );
    expect(textOf(started)).toMatch(permalinkOf('C02DEPLOYS', card.ts));
  });

  it('a form whose result goes to another channel says so where the person acted', async () => {
    await h.user().command(`run "${SCALE}"`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'run modal');
    await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: {
        [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C02DEPLOYS' },
      },
      field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
      field_deployment: { value: { type: 'plain_text_input', value: 'form-elsewhere' } },
      field_replicas: { value: { type: 'number_input', value: '2' } },
    });
    const run = await waitFor(
      () => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'form-elsewhere'),
      'run',
    );
    const card = await waitFor(() => cardOf('C02DEPLOYS', run.id), 'card in #deploys');
    const told = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.channel === 'C01OPS' && permalinkOf('C02DEPLOYS', card.ts).test(textOf(e)),
        ),
      'the answer in #ops',
    );
    expect(textOf(told)).toContain('Its live card is in <#C02DEPLOYS>');
  });

  it('says "both" when a quorum needs both approvers, and the approval DM links the card', async () => {
    await h.user().command('run "Drain Kubernetes Node"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_node_name'), 'run modal');
    expect(textOf(modal.view)).toContain('it needs approval from both <@U02BOB> and <@U03CAROL>.');
    expect(textOf(modal.view)).not.toContain('<@U02BOB> or <@U03CAROL> can approve');
    await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_node_name: { value: { type: 'plain_text_input', value: 'node-dm-link' } },
    });
    const request = await waitFor(
      () => h.fake.state.messages.C03APPROVALS?.find((m) => JSON.stringify(m.blocks).includes('node-dm-link')),
      'approval request',
    );
    await h.user('U02BOB').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    await h.user('U03CAROL').act({ kind: 'message', message: request }, ACTIONS.approvalApprove);
    const run = await waitFor(
      () => executionsOf('Drain Kubernetes Node').find((e) => paramsOf(e).node_name === 'node-dm-link'),
      'approved run',
    );
    const card = await waitFor(() => cardOf('C01OPS', run.id), 'card');
    const dm = await waitFor(
      () =>
        Object.values(h.fake.state.messages)
          .flat()
          .find((m) => m.channel.startsWith('D') && textOf(m).includes(`running as \`${run.id}\``)),
      'requester copy',
    );
    expect(textOf(dm)).toMatch(
      new RegExp(`<https://[^|>]+/archives/C01OPS/p${card.ts.replace('.', '')}\\|open its card>`),
    );
  });
});

describe('executions', () => {
  it('"Only mine" counts and pages only the person\'s runs', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user().command('executions', 'C01OPS');
    const all = await waitFor(() => latestEphemeral('Executions', 'U01ALICE', since), 'executions');
    await h.user().act({ kind: 'ephemeral', ephemeral: all }, `${ACTIONS.executionsPage}_mine`);
    const mine = await waitFor(() => latestEphemeral('only yours'), 'only mine');
    const own = [...h.emulator.state.executions.byId.values()].filter((e) => e.executor === 'alice@example.com');
    const succeeded = own.filter((e) => e.status === 'EXECUTION_STATUS_SUCCEEDED').length;
    const failed = own.filter((e) => e.status === 'EXECUTION_STATUS_FAILED').length;
    const header = textOf(mine)
      .split('\n')
      .find((line) => line.includes('only yours'))!;
    if (succeeded) expect(header).toContain(`:white_check_mark: ${succeeded} succeeded`);
    if (failed) expect(header).toContain(`:x: ${failed} failed`);
    const pages = Math.ceil(own.length / 10);
    expect(header).toMatch(pages > 1 ? new RegExp(`page 1 of ${pages}$`) : /only yours\* · all time · page 1$/);
    expect(own.length).toBeGreaterThan(0);
    expect(header).not.toContain('Nothing to show on this page');
  });

  it('the Running filter button with nothing running names the button, not flags nobody typed', async () => {
    await h.user().command('executions "Find Public S3 Buckets"', 'C01OPS');
    const list = await waitFor(() => latestEphemeral('Executions of Find Public S3 Buckets'), 'executions');
    await h.user().act({ kind: 'ephemeral', ephemeral: list }, `${ACTIONS.executionsPage}_status_running`);
    const empty = await waitFor(() => latestEphemeral('that are running'), 'empty running');
    expect(textOf(empty)).toContain('Pick *All* to see every status.');
    expect(textOf(empty)).not.toContain('--status');
  });

  it("a row shows the execution's real type", async () => {
    const action = [...h.emulator.state.executions.byId.values()].find(
      (e) => e.type === 'EXECUTION_TYPE_ACTION' && /^[\w ]+$/.test(e.workflowName),
    );
    expect(action).toBeDefined();
    const since = h.fake.state.ephemerals.length;
    await h.user().command(`executions "${action!.workflowName}"`, 'C01OPS');
    const list = await waitFor(() => latestEphemeral('all time', 'U01ALICE', since), 'executions');
    const row = textOf(list)
      .split('\n')
      .findIndex((line) => line.includes(action!.id));
    expect(row).toBeGreaterThan(1);
    expect(textOf(list).split('\n')[row - 2]).toMatch(/ · action · /);
  });
});

describe('aliases and proxies', () => {
  it('alias add over an existing alias is refused, says how to replace it, and --replace does', async () => {
    await h.user().command(`alias add scale-twice "${SCALE}" namespace=prod`, 'C01OPS');
    await waitFor(() => latestEphemeral('Alias `scale-twice` added'), 'added');
    await h.user().command('alias add scale-twice "Rotate Nginx Logs"', 'C01OPS');
    await waitFor(
      () => latestEphemeral('already has an alias `scale-twice` (for Scale Kubernetes Deployment); nothing changed'),
      'refused',
    );
    expect((await h.runtime.store.aliases.get('C01OPS', 'scale-twice'))?.runbookName).toBe(SCALE);
    expect(textOf(latestEphemeral('already has an alias')!)).toContain('Add `--replace` to replace it');
    await h.user().command('alias add scale-twice "Rotate Nginx Logs" --replace', 'C01OPS');
    await waitFor(() => latestEphemeral('Alias `scale-twice` replaced'), 'replaced');
    expect((await h.runtime.store.aliases.get('C01OPS', 'scale-twice'))?.runbookName).toBe('Rotate Nginx Logs');
  });

  it("channel defaults name the bot's default proxy; the --now confirmation shows the proxy's display name", async () => {
    await h.user().command('defaults', 'C02DEPLOYS');
    const defaults = await waitFor(() => latestEphemeral('Run defaults of this channel'), 'defaults');
    expect(textOf(defaults)).toContain("proxy Dev proxy (the bot's default)");
    expect(textOf(defaults)).not.toContain('usual');
    const since = h.fake.state.ephemerals.length;
    await h.user().command(`run "${SCALE}" namespace=prod deployment=named replicas=1 --now`, 'C01OPS');
    const confirm = await waitFor(() => latestEphemeral(ACTIONS.confirmRun, 'U01ALICE', since), 'confirmation');
    expect(textOf(confirm)).toContain('now, on proxy Dev proxy,');
  });

  it('defaults --proxy nosuch lists the valid proxies', async () => {
    await h.user().command('defaults --proxy nosuch', 'C01OPS');
    await waitFor(
      () => latestEphemeral('proxy "nosuch" is not one of the offered proxies: Dev proxy (proxy-dev), Prod proxy'),
      'refusal naming the valid ones',
    );
  });
});

describe('search', () => {
  it('list postgress suggests the closest names, as show does', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user().command('list postgress', 'C01OPS');
    const list = await waitFor(() => latestEphemeral('matching', 'U01ALICE', since), 'list');
    expect(textOf(list)).toContain('No runbook matches “postgress”. Did you mean one of these?');
    expect(textOf(list)).toContain('*Postgres Vacuum Analyze*');
    expect(JSON.stringify(list.blocks)).toContain(ACTIONS.pickRunbook);
  });

  it('category counts follow a search', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user().command('list restart', 'C01OPS');
    const list = await waitFor(() => latestEphemeral('matching', 'U01ALICE', since), 'list');
    const options = (JSON.stringify(list.blocks).match(/"text":"[A-Za-z ]+ \(\d+(\/\d+)?\)"/g) ?? []).join(' ');
    expect(options).toMatch(/\(\d+\)/);
    expect(options).not.toMatch(/\d+\/\d+/);
    const total = Number(/^(\d+) runbooks matching/.exec(list.text)?.[1]);
    expect(total).toBeGreaterThan(1);
    for (const m of options.matchAll(/\((\d+)\)/g)) expect(Number(m[1])).toBeLessThanOrEqual(total);
  });

  it('list --category nosuch says there is no such category and names the categories', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user().command('list --category nosuch', 'C01OPS');
    const list = await waitFor(() => latestEphemeral('no category', 'U01ALICE', since), 'answer');
    expect(textOf(list)).toMatch(/There is no category “nosuch”\. The categories are .*`sre`/);
    expect(list.text).not.toContain('in Nosuch');
  });
});

describe('labels', () => {
  it('the --now confirmation and Details show the schema titles the form shows', async () => {
    const since = h.fake.state.ephemerals.length;
    await h.user().command(`run "${SCALE}" namespace=prod deployment=labels replicas=2 context=dev --now`, 'C01OPS');
    const confirm = await waitFor(() => latestEphemeral(ACTIONS.confirmRun, 'U01ALICE', since), 'confirmation');
    expect(textOf(confirm)).toMatch(/Cluster/);
    expect(textOf(confirm)).not.toMatch(/\bContext\b/);
    await h.user().act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmRun);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'labels'), 'run');
    const before = h.fake.state.ephemerals.length;
    await h.user().command(`status ${run.id}`, 'C01OPS');
    const details = await waitFor(() => latestEphemeral('*Inputs*', 'U01ALICE', before), 'details');
    expect(textOf(details)).toMatch(/Cluster/);
    expect(textOf(details)).not.toMatch(/\bContext\b/);
  });
});

describe('noise', () => {
  it('a description written with mrkdwn characters is shown as written, in show and list', async () => {
    let since = h.fake.state.ephemerals.length;
    await h.user().command('show "Check <prod> & \\"staging\\" Health"', 'C01OPS');
    const details = await waitFor(() => latestEphemeral('compares their versions', 'U01ALICE', since), 'details');
    expect(textOf(details)).toContain('compares their versions. \u2217Not\u2217 \u02cdformatted\u02cd.');
    since = h.fake.state.ephemerals.length;
    await h.user().command('list compares their versions', 'C01OPS');
    const list = await waitFor(() => latestEphemeral('compares their versions', 'U01ALICE', since), 'list');
    expect(textOf(list)).toContain('\u2217Not\u2217 \u02cdformatted\u02cd.');
    expect(textOf(list)).not.toContain('*Not*');
  });
});

describe('time', () => {
  it('a date-time picker names the person’s zone, and the picked time is sent with its offset', async () => {
    await h.user().command('run "Collect Kubernetes Pod Logs"', 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_since'), 'run modal');
    expect(JSON.stringify(modal.view.blocks)).toContain(
      'The time is in your Slack time zone, Central European Time (Europe/Berlin).',
    );
    // Alice (Berlin) picks 2026-12-01 02:00: Slack sends the instant, 01:00 UTC.
    const picked = Date.parse('2026-12-01T01:00:00Z') / 1000;
    await h.user().submit(modal.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'tz-check' } },
      field_since: { value: { type: 'datetimepicker', selected_date_time: picked } },
    });
    const run = await waitFor(
      () => executionsOf('Collect Kubernetes Pod Logs').find((e) => paramsOf(e).namespace === 'tz-check'),
      'run',
    );
    expect(paramsOf(run).since).toBe('2026-12-01T02:00:00+01:00');
  });
});
