// One-line runs, --now, aliases, channel defaults, a mention's run in its thread and the message
// shortcut, end to end through the real Bolt pipeline (signed requests, fake Slack, emulator).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS, SHORTCUTS } from '../../src/slack/kit/ids.ts';
import { ephemeralContaining, type Harness, modalContaining, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const SCALE = 'Scale Kubernetes Deployment';
const executionsOf = (name: string) =>
  [...h.emulator.state.executions.byId.values()].filter((e) => e.workflowName === name);
const paramsOf = (e: { received: { params?: unknown } }) => JSON.parse(String(e.received.params ?? '{}'));
const confirmation = (needle: string, user = 'U01ALICE') =>
  [...h.fake.state.ephemerals]
    .reverse()
    .find(
      (e) =>
        e.user === user &&
        !e.deleted &&
        JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun) &&
        JSON.stringify(e.blocks).includes(needle),
    );

async function clickRun(e: FakeEphemeral, user = 'U01ALICE') {
  await h.user(user).act({ kind: 'ephemeral', ephemeral: e }, ACTIONS.confirmRun);
}

describe('one-line runs', () => {
  it('run <runbook> key=value opens the form prefilled, with a refused value shown above it', async () => {
    await h.user().command(`run "${SCALE}" namespace=prod deployment=web replicas=many`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, 'field_replicas'), 'prefilled form');
    const blocks = JSON.stringify(modal.view.blocks);
    expect(blocks).toContain('"initial_value":"prod"');
    expect(blocks).toContain('"initial_value":"web"');
    expect(blocks).toMatch(/replicas`: Must be a whole number/);
  });

  it('--now is refused when a value is invalid, and nothing runs', async () => {
    const before = executionsOf(SCALE).length;
    await h.user().command(`run "${SCALE}" namespace=prod deployment=web replicas=500 --now`, 'C01OPS');
    const reply = await waitFor(
      () => ephemeralContaining(h.fake, 'Nothing ran. These values are not valid'),
      'refusal',
    );
    expect(reply.text).toMatch(/replicas/);
    expect(executionsOf(SCALE)).toHaveLength(before);
  });

  it('--now is refused when approval is needed: no run, no approval request', async () => {
    const approvals = (await h.runtime.store.audit.recent(100)).filter((e) => e.action === 'approval.request').length;
    await h.user().command('run "Drain Kubernetes Node" node_name=n1 --now', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'needs approval'), 'refusal');
    expect(executionsOf('Drain Kubernetes Node')).toHaveLength(0);
    expect((await h.runtime.store.audit.recent(100)).filter((e) => e.action === 'approval.request')).toHaveLength(
      approvals,
    );
  });

  it('--now with valid values confirms first; Run starts it once, even clicked twice', async () => {
    const before = executionsOf(SCALE).length;
    await h.user().command(`run "${SCALE}" namespace=prod deployment=once replicas=2 --now`, 'C01OPS');
    const confirm = await waitFor(() => confirmation('once'), 'confirmation');
    expect(JSON.stringify(confirm.blocks)).toContain(ACTIONS.confirmEdit);
    expect(executionsOf(SCALE)).toHaveLength(before);
    await clickRun(confirm);
    await clickRun(confirm);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'once'), 'the run');
    // The second click is told it was already done.
    await waitFor(() => ephemeralContaining(h.fake, 'already done'), 'already done');
    expect(paramsOf(run)).toMatchObject({ namespace: 'prod', deployment: 'once', replicas: 2 });
    await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).some((m) => JSON.stringify(m.blocks).includes(run.id)),
      'card',
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(executionsOf(SCALE).filter((e) => paramsOf(e).deployment === 'once')).toHaveLength(1);
  });
});

describe('schema defaults on one line', () => {
  it('--now fills what was not typed with the schema defaults, shows them, and sends them', async () => {
    await h.user().command(`run "${SCALE}" deployment=defaulted --now`, 'C01OPS');
    const confirm = await waitFor(() => confirmation('defaulted'), 'confirmation (no "Required")');
    // The schema's defaults: namespace "default", replicas 3 — shown in the confirmation.
    const shown = JSON.stringify(confirm.blocks);
    expect(shown).toMatch(/namespace/i);
    expect(shown).toMatch(/replicas/i);
    expect(shown).toContain('default');
    await clickRun(confirm);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'defaulted'), 'run');
    expect(paramsOf(run)).toMatchObject({ namespace: 'default', deployment: 'defaulted', replicas: 3 });
  });
});

describe('the --now confirmation', () => {
  it('Edit opens the form filled in and replaces the confirmation; Cancel replaces it and runs nothing', async () => {
    const before = executionsOf(SCALE).length;
    await h.user().command(`run "${SCALE}" namespace=prod deployment=edit-me replicas=3 --now`, 'C01OPS');
    const edited = structuredClone(await waitFor(() => confirmation('edit-me'), 'confirmation'));
    await h.user().act({ kind: 'ephemeral', ephemeral: edited }, ACTIONS.confirmEdit);
    const form = await waitFor(() => modalContaining(h, '"initial_value":"edit-me"'), 'the form, filled in');
    expect(JSON.stringify(form.view.blocks)).toContain('"initial_value":"3"');
    await waitFor(
      () => h.fake.state.ephemerals.find((e) => e.ts === edited.ts && e.text === 'Opened in a form'),
      'the confirmation replaced',
    );
    // Used: its Cancel (clicked from what was on screen before) does nothing more and says so.
    await h.user().act({ kind: 'ephemeral', ephemeral: edited }, ACTIONS.confirmCancel);
    await waitFor(() => ephemeralContaining(h.fake, 'already done'), 'already done');
    expect(h.fake.state.ephemerals.find((e) => e.ts === edited.ts)?.text).toBe('Opened in a form');

    await h.user().command(`run "${SCALE}" namespace=prod deployment=cancel-me replicas=3 --now`, 'C01OPS');
    const confirm = await waitFor(() => confirmation('cancel-me'), 'confirmation');
    await h.user().act({ kind: 'ephemeral', ephemeral: confirm }, ACTIONS.confirmCancel);
    await waitFor(
      () => h.fake.state.ephemerals.find((e) => e.ts === confirm.ts && e.text === 'Cancelled'),
      'cancelled',
    );
    expect(executionsOf(SCALE)).toHaveLength(before);
  });
});

describe('aliases and channel defaults', () => {
  it('alias add, list, use with an override (--now), remove; audited', async () => {
    const alice = h.user();
    await alice.command(
      `alias add scale-web "${SCALE}" namespace=prod deployment=web replicas=3 --to <#C02DEPLOYS|deploys>`,
      'C01OPS',
    );
    await waitFor(() => ephemeralContaining(h.fake, 'Alias `scale-web` added'), 'saved');
    await alice.command('alias list', 'C01OPS');
    const list = await waitFor(() => ephemeralContaining(h.fake, 'Aliases in this channel'), 'list');
    expect(JSON.stringify(list.blocks)).toContain('scale-web');
    await alice.command('scale-web replicas=5 --now', 'C01OPS');
    const confirm = await waitFor(() => confirmation('scale-web'), 'confirmation');
    await clickRun(confirm);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).replicas === 5), 'aliased run');
    expect(paramsOf(run)).toMatchObject({ namespace: 'prod', deployment: 'web', replicas: 5 });
    await waitFor(
      () => (h.fake.state.messages.C02DEPLOYS ?? []).some((m) => JSON.stringify(m.blocks).includes(run.id)),
      'card in #deploys',
    );
    // In another channel the alias does not exist: the usual did-you-mean.
    await alice.command('scale-web', 'C03APPROVALS');
    await waitFor(
      () => ephemeralContaining(h.fake, '`scale-web` is neither a /runbook subcommand nor an alias in this channel'),
      'unknown elsewhere',
    );
    // App Home lists the person's saved runs.
    await alice.openHome();
    await waitFor(() => {
      const home = h.fake.state.views[h.fake.state.homeViews.U01ALICE ?? ''];
      return home && JSON.stringify(home.view.blocks).includes('scale-web');
    }, 'the alias on App Home');
    await alice.command('alias remove scale-web', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'Alias `scale-web` removed'), 'removed');
    const actions = (await h.runtime.store.audit.recent(50)).map((e) => e.action);
    expect(actions).toContain('alias.add');
    expect(actions).toContain('alias.remove');
  });

  it('channel defaults are shown and preselected in the form opened there', async () => {
    await h.user().command('defaults --proxy proxy-dev --to C02DEPLOYS', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'Run defaults of this channel'), 'defaults');
    await h.user().command(`run "${SCALE}" namespace=qa`, 'C01OPS');
    const modal = await waitFor(() => modalContaining(h, "This channel's run defaults"), 'form with defaults');
    const blocks = JSON.stringify(modal.view.blocks);
    expect(blocks).toContain('"initial_conversation":"C02DEPLOYS"');
    const proxy = (
      modal.view.blocks as Array<{ block_id?: string; element?: { initial_option?: { value?: string } } }>
    ).find((b) => b.block_id === BLOCKS.proxy);
    expect(proxy?.element?.initial_option?.value).toBe('proxy-dev');
    await h.user().command('defaults clear', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, "proxy Dev proxy (the bot's default)"), 'cleared');
  });
});

describe('--to #name (what Slack sends with should_escape false)', () => {
  /** An ephemeral with `needle` posted after the first `after` ones (earlier tests left look-alikes). */
  const newEphemeral = (after: number, needle: string) =>
    h.fake.state.ephemerals.slice(after).find((e) => JSON.stringify([e.text, e.blocks]).includes(needle));

  it('defaults --to #deploys stores the channel id; an unknown #name is refused by name', async () => {
    let seen = h.fake.state.ephemerals.length;
    try {
      await h.user().command('defaults --proxy proxy-dev --to #deploys', 'C01OPS');
      await waitFor(() => newEphemeral(seen, 'Run defaults of this channel'), 'defaults');
      const saved = await h.runtime.store.channelDefaults.get('C01OPS');
      expect(saved).toMatchObject({ proxyId: 'proxy-dev', resultChannel: 'C02DEPLOYS' });
      seen = h.fake.state.ephemerals.length;
      await h.user().command(`alias add to-nowhere "${SCALE}" --to #no-such-channel`, 'C01OPS');
      const refusal = await waitFor(() => newEphemeral(seen, '`#no-such-channel`'), 'refusal');
      expect(refusal.text).toMatch(/Not saved: No channel/);
      expect(await h.runtime.store.aliases.get('C01OPS', 'to-nowhere')).toBeNull();
    } finally {
      seen = h.fake.state.ephemerals.length;
      await h.user().command('defaults clear', 'C01OPS');
      await waitFor(() => newEphemeral(seen, "proxy Dev proxy (the bot's default)"), 'cleared');
    }
    expect((await h.runtime.store.channelDefaults.get('C01OPS'))?.resultChannel ?? null).toBeNull();
  });
});

describe('channel defaults everywhere the form opens', () => {
  /** Clears C01OPS's defaults and waits for this clear's own answer (not an earlier one). */
  async function clearDefaults() {
    const answers = () =>
      h.fake.state.ephemerals.filter((e) => JSON.stringify(e.blocks ?? []).includes("(the bot's default)"));
    const before = answers().length;
    await h.user().command('defaults clear', 'C01OPS');
    await waitFor(() => answers().length > before, 'cleared');
  }
  const proxyOf = (view: { blocks?: unknown }) =>
    (view.blocks as Array<{ block_id?: string; element?: { initial_option?: { value?: string } } }>).find(
      (b) => b.block_id === BLOCKS.proxy,
    )?.element?.initial_option?.value;

  it('the schedule form preselects the channel default proxy too', async () => {
    await h.user().command('defaults --proxy proxy-prod', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'proxy Prod proxy'), 'defaults saved');
    try {
      for (let top = h.user().topModal(); top; top = h.user().topModal()) await h.user().close(top.id);
      await h.user().command(`schedule "${SCALE}"`, 'C01OPS');
      const modal = await waitFor(() => modalContaining(h, BLOCKS.cron), 'schedule form');
      expect(proxyOf(modal.view)).toBe('proxy-prod');
    } finally {
      await clearDefaults();
    }
  });

  it('/runbook run <name> without values preselects the channel default proxy and result channel', async () => {
    await h.user().command('defaults --proxy proxy-prod --to C02DEPLOYS', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'proxy Prod proxy, results to'), 'defaults saved');
    try {
      await h.user().command(`run "${SCALE}"`, 'C01OPS');
      const modal = await waitFor(
        () => modalContaining(h, "This channel's run defaults: proxy Prod proxy, results to <#C02DEPLOYS>"),
        'form with the defaults',
      );
      expect(JSON.stringify(modal.view.blocks)).toContain('"initial_conversation":"C02DEPLOYS"');
      expect(proxyOf(modal.view)).toBe('proxy-prod');
      // The same form opened in another channel keeps the bot's default proxy and that channel.
      await h.user().command(`run "${SCALE}"`, 'C03APPROVALS');
      const elsewhere = await waitFor(
        () => modalContaining(h, '"initial_conversation":"C03APPROVALS"'),
        'form in another channel',
      );
      expect(JSON.stringify(elsewhere.view.blocks)).not.toContain("This channel's run defaults");
      expect(proxyOf(elsewhere.view)).toBe('proxy-dev');
    } finally {
      await clearDefaults();
    }
  });

  it('a default proxy that is not offered is refused with the alias sentence, naming the valid ones; nothing is stored', async () => {
    await h.user().command('defaults --proxy bogus-proxy', 'C01OPS');
    await waitFor(
      () =>
        ephemeralContaining(
          h.fake,
          'Not saved: proxy \\"bogus-proxy\\" is not one of the offered proxies: Dev proxy (proxy-dev), Prod proxy (proxy-prod)',
        ),
      'refusal',
    );
    expect(await h.runtime.store.channelDefaults.get('C01OPS')).toBeNull();
    await h.user().command('alias add bogus-alias "Scale Kubernetes Deployment" --proxy bogus-proxy', 'C01OPS');
    await waitFor(
      () =>
        ephemeralContaining(
          h.fake,
          'Not saved: proxy \\"bogus-proxy\\" is not one of the offered proxies: Dev proxy (proxy-dev), Prod proxy (proxy-prod)',
        ),
      'same refusal for an alias',
    );
  });

  it('a run started from a thread posts its card in the thread, over the default result channel', async () => {
    await h.user().command('defaults --to C02DEPLOYS', 'C01OPS');
    await waitFor(() => ephemeralContaining(h.fake, 'Run defaults of this channel'), 'defaults saved');
    try {
      const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'scale it up' });
      await h
        .user()
        .mention(`run "${SCALE}" namespace=prod deployment=threaded-default replicas=2 --now`, 'C01OPS', root.ts);
      const confirm = await waitFor(
        () =>
          h.fake.state.ephemerals.find(
            (e) =>
              e.thread_ts === root.ts &&
              JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun) &&
              JSON.stringify(e.blocks).includes('threaded-default'),
          ),
        'confirmation in the thread',
      );
      await clickRun(confirm);
      const run = await waitFor(
        () => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'threaded-default'),
        'the run',
      );
      const card = await waitFor(
        () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
        'card in the thread',
      );
      expect(card.thread_ts).toBe(root.ts);
      expect((h.fake.state.messages.C02DEPLOYS ?? []).some((m) => JSON.stringify(m.blocks).includes(run.id))).toBe(
        false,
      );
    } finally {
      await clearDefaults();
    }
  });
});

describe('runs from threads and messages', () => {
  it('a mention in a thread: --now confirms in the thread and the card goes to that thread', async () => {
    const root = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'web is flapping' });
    await h.user().mention(`run "${SCALE}" namespace=prod deployment=thread replicas=4 --now`, 'C01OPS', root.ts);
    const confirm = await waitFor(
      () =>
        h.fake.state.ephemerals.find(
          (e) => e.thread_ts === root.ts && JSON.stringify(e.blocks ?? []).includes(ACTIONS.confirmRun),
        ),
      'confirmation in the thread',
    );
    await clickRun(confirm);
    const run = await waitFor(() => executionsOf(SCALE).find((e) => paramsOf(e).deployment === 'thread'), 'the run');
    const card = await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
      'card',
    );
    expect(card.thread_ts).toBe(root.ts);
  });

  it('the message shortcut opens the picker; the card says which message it started from', async () => {
    const message = h.fake.addUserMessage({ channel: 'C01OPS', user: 'U02BOB', text: 'pods crashlooping in payments' });
    await h.user().messageShortcut(SHORTCUTS.runFromMessage, message);
    const picker = await waitFor(() => modalContaining(h, BLOCKS.runbookPicker), 'picker');
    expect(picker.view.private_metadata).toContain(`p${message.ts.replace('.', '')}`);
    const runbookId = (await h.runtime.deps.catalog.resolve('Find Crashlooping Pods')) as {
      kind: string;
      runbook?: { id: string };
    };
    await h.user().act({ kind: 'view', view: picker }, ACTIONS.runbookPicker, {
      type: 'external_select',
      selected_option: { text: { type: 'plain_text', text: 'Find Crashlooping Pods' }, value: runbookId.runbook!.id },
    });
    const form = await waitFor(() => modalContaining(h, 'field_namespace'), 'form');
    expect(form.view.private_metadata).toContain(`p${message.ts.replace('.', '')}`);
    await h.user().submit(form.id, {
      [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
      [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
      field_namespace: { value: { type: 'plain_text_input', value: 'payments' } },
    });
    const run = await waitFor(
      () => executionsOf('Find Crashlooping Pods').find((e) => paramsOf(e).namespace === 'payments'),
      'the run',
    );
    const card = await waitFor(
      () => (h.fake.state.messages.C01OPS ?? []).find((m) => JSON.stringify(m.blocks ?? []).includes(run.id)),
      'card',
    );
    expect(JSON.stringify(card.blocks)).toContain('Started from <https://');
  });
});
