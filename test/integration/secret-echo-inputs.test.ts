// A careless user types a secret into a field that is not secret (`ssh_user = "ops <the key>"`), or a
// schedule's params carry it under a plain key: the secret field itself is masked, and every echo of
// its value in the other inputs must be too — on the running card, the result card, the audit trail,
// the schedules list and Run now's confirmation — as /runbook status already does. And a multi-line key
// that the runbook prints as JSON (`\n` escapes, or an ASCII-only encoder's `\u00e4`) is masked on the
// card like a plain echo. Through the real Bolt pipeline (fake Slack, emulator).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';
import { clickRunNow } from '../support/run-form.ts';

const RUNBOOK = 'Check Disk Usage on Hosts'; // ssh_private_key is `type: secret`, ssh_user is plain text
const SECRET = 'Zq9$k3y.P@ss(w+rd)*';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: QUICK_WATCH_ENV });
});
afterAll(async () => {
  await h?.stop();
});

const messagesIn = (channel: string) => h.fake.state.messages[channel] ?? [];
const shown = (value: unknown) => JSON.stringify(value);

async function runFromForm(host: string, user: string, key: string) {
  await h.user().command(`run "${RUNBOOK}"`, 'C01OPS');
  const modal = await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal');
  await h.user().submit(modal.id, {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_hosts: { value: { type: 'plain_text_input', value: host } },
    field_ssh_user: { value: { type: 'plain_text_input', value: user } },
    field_ssh_private_key: { value: { type: 'plain_text_input', value: key } },
  });
  return waitFor(
    () => [...h.emulator.state.executions.byId.values()].find((e) => shown(e.params.hosts) === shown([host])),
    'the execution',
  );
}

async function resultCard(executionId: string) {
  h.clock.advance(60 * 60_000);
  return waitFor(
    () =>
      messagesIn('C01OPS').find(
        (m) => shown(m.blocks ?? []).includes(executionId) && shown(m.blocks).includes('*Output*'),
      ),
    'the result card',
    15_000,
  );
}

it('a secret echoed in a plain input is masked on the running and result cards and in the audit trail', async () => {
  const run = await runFromForm('echo-1', `ops ${SECRET}`, SECRET);
  const card = await waitFor(
    () => messagesIn('C01OPS').find((m) => shown(m.blocks ?? []).includes(run.id)),
    'the running card',
  );
  expect(shown([card.text, card.blocks])).toContain('ops ••••••');
  const finished = await resultCard(run.id);
  expect(shown([finished.text, finished.blocks])).not.toContain(SECRET);
  expect(shown(messagesIn('C01OPS'))).not.toContain(SECRET);
  expect(shown(await h.runtime.store.audit.recent(200))).not.toContain(SECRET);
});

it('a secret under a plain key of a schedule is masked on the schedules list and in Run now’s confirmation', async () => {
  const [runbook] = await h.runtime.deps.catalog.named(RUNBOOK);
  const schedule = await h.runtime.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook!.id,
    runbookName: runbook!.name,
    inputSchema: runbook!.inputSchema,
    params: JSON.stringify({ hosts: ['sched-1'], ssh_user: `ops ${SECRET}`, ssh_private_key: SECRET }),
    schedule: '0 3 * * *',
  });
  const since = h.fake.state.ephemerals.length;
  await h.user().command('schedules', 'C01OPS');
  const list = await waitFor(
    () => h.fake.state.ephemerals.slice(since).find((e) => shown(e.blocks ?? []).includes('sched-1')),
    'the schedules list',
  );
  expect(shown(list.blocks)).toContain('ops ••••••');
  expect(shown([list.text, list.blocks])).not.toContain(SECRET);

  const before = h.fake.state.ephemerals.length;
  // The list's own Run now button of that schedule.
  await clickRunNow(h, list, schedule.id);
  const confirmation = await waitFor(
    () =>
      h.fake.state.ephemerals
        .slice(before)
        .find((e) => shown(e.blocks ?? []).includes(ACTIONS.scheduleRunNowConfirmed)),
    'the Run now confirmation',
  );
  expect(shown(confirmation.blocks)).toContain('ops ••••••');
  expect(shown([confirmation.text, confirmation.blocks])).not.toContain(SECRET);
});

it('a multi-line key the runbook prints as JSON is masked on the result card and in its file', async () => {
  const pem =
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAB\nG5vbmUAAAAEbm9uZQAAAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----';
  const accented = 'clé-privée-ü';
  h.emulator.state.executions.outputOverride = (record) =>
    `inputs ${JSON.stringify(record.params)}\nascii ${JSON.stringify(record.params).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
  try {
    const pemRun = await runFromForm('pem-1', 'ops', pem);
    const pemCard = await resultCard(pemRun.id);
    expect(shown(pemCard.blocks)).toContain('ssh_private_key\\":\\"••••••');
    const accentedRun = await runFromForm('accented-1', 'ops', accented);
    const accentedCard = await resultCard(accentedRun.id);
    expect(shown(accentedCard.blocks)).toContain('ssh_private_key\\":\\"••••••');
    const everything = shown([messagesIn('C01OPS'), Object.values(h.fake.state.files).map((f) => f.content)]);
    for (const line of ['b3BlbnNzaC1rZXktdjEAAAAAB', 'G5vbmUAAAAEbm9uZQAAAAAAAAAB', 'clé-priv', 'cl\\u00e9-priv']) {
      expect(everything, line).not.toContain(line);
    }
  } finally {
    h.emulator.state.executions.outputOverride = null;
  }
});
