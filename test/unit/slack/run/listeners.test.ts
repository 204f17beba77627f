// The run feature's listeners (the buttons that open the run form, its picker, submission and typeahead,
// the shortcuts, and the --now confirmation's Run / Edit / Cancel), called as Bolt would call them (fake
// ack, respond, client and request context) over the real use cases and the emulator: what reached the
// use case (the run the API received, the form's target), what was shown, one refusal each.
import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../../src/forms/input-schema.ts';
import { ALREADY_DONE } from '../../../../src/runs/once.ts';
import { BLOCKS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { OptionsArgs, ShortcutArgs, ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { decodeRunMetadata, encodeRunMetadata } from '../../../../src/slack/kit/run-modal.ts';
import {
  confirmCancelClicked,
  confirmEditClicked,
  confirmRunClicked,
} from '../../../../src/slack/run/confirm-actions.ts';
import { fieldSuggested, runbookSuggested } from '../../../../src/slack/run/options.ts';
import { runListeners } from '../../../../src/slack/run/register.ts';
import { homeRunClicked, runClicked, runPickerChosen, tryAgainClicked } from '../../../../src/slack/run/run-actions.ts';
import { messageShortcutUsed, runShortcutUsed } from '../../../../src/slack/run/shortcuts.ts';
import { runFormSubmitted } from '../../../../src/slack/run/views.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { submit } from '../../forms/slack-state.ts';
import { clickOf } from '../listener-args.ts';
import {
  blockOf,
  type ListenerEnv,
  lastView,
  type ShownView,
  shown,
  startListenerEnv,
  viewsShown,
} from '../listener-env.ts';

const RESIZE = 'Resize EC2 Instance';
/** What the form sends for PLAIN when only the two required fields are typed: the schema's defaults fill the rest. */
const PLAIN_RUN = {
  runbook: PLAIN,
  params: { namespace: 'web', deployment: 'api', context: 'staging', wait_for_rollout: true, timeout_seconds: 300 },
  proxyId: 'proxy-dev',
};

let env: ListenerEnv;
let plainId = '';
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
  plainId = (await env.runbook(PLAIN)).id;
});
afterAll(() => env.close());
beforeEach(() => env.reset());

/** A draft of a PLAIN run, as a failed run or a --now confirmation leaves it. */
async function plainDraft(params: Record<string, unknown> = { namespace: 'web', deployment: 'api' }): Promise<string> {
  const runbook = await env.runbook(PLAIN);
  return env.slackDeps.drafts.save(
    { runbookId: runbook.id, proxyId: 'proxy-dev', channel: 'C01OPS', params },
    parseInputSchema(runbook.inputSchema),
  );
}

/** The run form of PLAIN as `userId` gets it from its Run button. */
async function plainForm(userId = 'U01ALICE'): Promise<ShownView> {
  await runClicked(clickOf(env, userId, plainId), env.context(userId));
  const form = lastView(env);
  env.reset();
  return form;
}

function submission(form: ShownView, userId: string, edits: Record<string, Record<string, unknown>>): ViewArgs {
  const values = submit(form.blocks as unknown as KnownBlock[], edits);
  return {
    ack: env.ack,
    client: env.client,
    body: {
      user: { id: userId, team_id: 'T01' },
      team: { id: 'T01' },
      view: {
        id: 'V0RUN',
        hash: 'h1',
        callback_id: VIEWS.run,
        private_metadata: form.private_metadata,
        state: { values },
      },
    },
  } as unknown as ViewArgs;
}

const TYPED = { field_namespace: { value: 'web' }, field_deployment: { value: 'api' } };

describe('run listeners', () => {
  it('registers the form buttons, picker, submission, typeahead, shortcuts and the confirmation', () => {
    expect(runListeners.map((r) => r.listener)).toEqual([
      runClicked,
      tryAgainClicked,
      homeRunClicked,
      runPickerChosen,
      runFormSubmitted,
      runbookSuggested,
      fieldSuggested,
      runShortcutUsed,
      messageShortcutUsed,
      confirmRunClicked,
      confirmEditClicked,
      confirmCancelClicked,
    ]);
  });

  it('runClicked opens a loading form at once and fills it with that runbook, its proxy and this channel', async () => {
    await runClicked(clickOf(env, 'U01ALICE', plainId), env.context());
    const [loading, form] = viewsShown(env);
    expect(loading!.callback_id).toBe(VIEWS.loading);
    expect(form!.callback_id).toBe(VIEWS.run);
    expect(decodeRunMetadata(form!.private_metadata)).toEqual({ r: plainId, c: 'C01OPS' });
    expect((blockOf(form!, BLOCKS.proxy).element.initial_option as { value: string }).value).toBe('proxy-dev');
    expect(blockOf(form!, BLOCKS.channel).element.initial_conversation).toBe('C01OPS');
    expect(JSON.stringify(form!.blocks)).toContain(PLAIN);
  });

  it('runClicked by someone who may not run shows the refusal instead of the form; audited', async () => {
    await runClicked(clickOf(env, 'U02BOB', plainId), env.context('U02BOB'));
    const view = lastView(env);
    expect(view.title?.text).toBe('Not allowed');
    expect(view.blocks.some((b) => b.block_id === BLOCKS.proxy)).toBe(false);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('tryAgainClicked reopens the form filled in from the draft', async () => {
    const draftId = await plainDraft({ namespace: 'batch', deployment: 'worker' });
    await tryAgainClicked(clickOf(env, 'U01ALICE', draftId), env.context());
    const form = lastView(env);
    expect(decodeRunMetadata(form.private_metadata).r).toBe(plainId);
    expect(blockOf(form, 'field_namespace').element.initial_value).toBe('batch');
    expect(blockOf(form, 'field_deployment').element.initial_value).toBe('worker');
  });

  it('tryAgainClicked on an expired draft says so and opens nothing', async () => {
    await tryAgainClicked(clickOf(env, 'U01ALICE', 'no-such-draft'), env.context());
    expect(env.replies.map((r) => r.text)).toEqual(['That form has expired.']);
    expect(viewsShown(env)).toEqual([]);
  });

  it('homeRunClicked acks and opens the form with the runbook picker', async () => {
    await homeRunClicked(clickOf(env, 'U01ALICE', ''), env.context('U01ALICE', null));
    expect(env.acks).toEqual([undefined]);
    const form = lastView(env);
    expect(decodeRunMetadata(form.private_metadata)).toEqual({ r: null, c: null });
    expect(form.blocks.some((b) => b.block_id === BLOCKS.runbookPicker)).toBe(true);
  });

  it('homeRunClicked without a trigger says in one sentence that the form did not open', async () => {
    await homeRunClicked(clickOf(env, 'U01ALICE', ''), { ...env.context('U01ALICE', null), triggerId: null });
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/^Opening the run form failed\./);
  });

  function picked(userId: string, runbookId: string): Parameters<typeof runPickerChosen>[0] {
    return clickOf(env, userId, '', {
      actions: [{ type: 'external_select', selected_option: { value: runbookId } }],
      view: { id: 'V0PICKER', hash: 'h7', private_metadata: encodeRunMetadata({ r: null, c: 'C01OPS' }) },
    });
  }

  it('runPickerChosen swaps the form in place for the chosen runbook, keeping the channel', async () => {
    await runPickerChosen(picked('U01ALICE', plainId), env.context());
    expect(env.acks).toEqual([undefined]);
    const update = env.called('views.update')[0]!;
    expect(update.args).toMatchObject({ view_id: 'V0PICKER', hash: 'h7' });
    const form = update.args.view as ShownView;
    expect(decodeRunMetadata(form.private_metadata)).toEqual({ r: plainId, c: 'C01OPS' });
    expect(form.blocks.some((b) => b.block_id === BLOCKS.runbookPicker)).toBe(true);
  });

  it('runPickerChosen shows the refusal to someone who may not run it', async () => {
    await runPickerChosen(picked('U02BOB', plainId), env.context('U02BOB'));
    expect((env.called('views.update')[0]!.args.view as ShownView).title?.text).toBe('Not allowed');
  });

  it('runFormSubmitted closes the form and starts the run with the typed values and the schema defaults', async () => {
    const form = await plainForm();
    await runFormSubmitted(submission(form, 'U01ALICE', TYPED), env.context());
    expect(env.acks).toEqual([undefined]);
    expect(env.runs()).toEqual([PLAIN_RUN]);
    // The live card goes to the run tracker for the channel the form named.
    expect(env.tracker.started_.at(-1)).toMatchObject({ runbookName: PLAIN, channel: 'C01OPS', startedBy: 'U01ALICE' });
  });

  it('runFormSubmitted keeps the form open with a field error when a required value is missing', async () => {
    const form = await plainForm();
    await runFormSubmitted(submission(form, 'U01ALICE', { field_namespace: { value: 'web' } }), env.context());
    expect(env.acks).toEqual([{ response_action: 'errors', errors: { field_deployment: expect.any(String) } }]);
    expect(env.runs()).toEqual([]);
  });

  it('runFormSubmitted by someone who may not run: the form says so, nothing runs, the refusal is audited', async () => {
    const form = await plainForm();
    await runFormSubmitted(submission(form, 'U02BOB', TYPED), env.context('U02BOB'));
    expect(env.acks).toHaveLength(1);
    const answer = env.acks[0] as { response_action: string; view: ShownView };
    expect(answer.response_action).toBe('update');
    expect(answer.view.title?.text).toBe('Not allowed');
    expect(env.runs()).toEqual([]);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('runFormSubmitted refuses a result channel the person is not in, on that field', async () => {
    const form = await plainForm();
    const edits = { ...TYPED, [BLOCKS.channel]: { selected_conversation: 'C09ELSEWHERE' } };
    await runFormSubmitted(submission(form, 'U01ALICE', edits), env.context());
    expect(env.acks).toEqual([{ response_action: 'errors', errors: { [BLOCKS.channel]: expect.any(String) } }]);
    expect(env.runs()).toEqual([]);
  });

  function suggestion(userId: string, value: string, metadata: string): OptionsArgs {
    return {
      ack: env.ack,
      client: env.client,
      payload: { value },
      body: { user: { id: userId }, team: { id: 'T01' }, value, view: { private_metadata: metadata } },
    } as unknown as OptionsArgs;
  }

  const optionNames = () =>
    ((env.acks[0] as { options: { text: { text: string } }[] }).options ?? []).map((o) => o.text.text);

  it('runbookSuggested offers the runbooks matching what was typed', async () => {
    await runbookSuggested(
      suggestion('U01ALICE', 'kubernetes deploy', encodeRunMetadata({ r: null, c: 'C01OPS' })),
      env.context(),
    );
    expect(optionNames()).toContain(PLAIN);
    expect(optionNames()).toContain('Scale Kubernetes Deployment');
    expect(optionNames()).not.toContain('Resize EC2 Instance');
  });

  it('runbookSuggested never offers a runbook the person may not view', async () => {
    await runbookSuggested(
      suggestion('U03CAROL', 'kubernetes deploy', encodeRunMetadata({ r: null, c: 'C01OPS' })),
      env.context('U03CAROL'),
    );
    expect(optionNames()).toContain('Scale Kubernetes Deployment');
    expect(optionNames()).not.toContain(PLAIN);
  });

  it('fieldSuggested searches the enum of the form runbook field (more values than a select holds)', async () => {
    const resize = await env.runbook(RESIZE);
    const args = suggestion('U01ALICE', 't3.m', JSON.stringify({ r: resize.id, c: 'C01OPS' }));
    (args.body as unknown as { block_id: string }).block_id = 'field_instance_type';
    await fieldSuggested(args, env.context());
    expect(optionNames().length).toBeGreaterThan(0);
    for (const name of optionNames()) expect(name).toMatch(/^t3\.m/);
  });

  it('fieldSuggested offers nothing for a form whose runbook it does not know', async () => {
    const args = suggestion('U01ALICE', 't3', JSON.stringify({ r: 'no-such-runbook', c: 'C01OPS' }));
    (args.body as unknown as { block_id: string }).block_id = 'field_instance_type';
    await fieldSuggested(args, env.context());
    expect(env.acks).toEqual([{ options: [] }]);
  });

  it('runShortcutUsed acks and opens the form with the picker', async () => {
    await runShortcutUsed({ ack: env.ack } as unknown as ShortcutArgs<never>, env.context('U01ALICE', null));
    expect(env.acks).toEqual([undefined]);
    expect(lastView(env).blocks.some((b) => b.block_id === BLOCKS.runbookPicker)).toBe(true);
  });

  it('runShortcutUsed without a trigger says the form did not open', async () => {
    await runShortcutUsed({ ack: env.ack } as unknown as ShortcutArgs<never>, {
      ...env.context('U01ALICE', null),
      triggerId: null,
    });
    expect(env.replies[0]!.text).toMatch(/^Opening the run form failed\./);
  });

  function fromMessage(threadTs?: string): ShortcutArgs<never> {
    const message = { ts: '1700000000.000400', ...(threadTs ? { thread_ts: threadTs } : {}) };
    return {
      ack: env.ack,
      client: env.client,
      body: { channel: { id: 'C01OPS' }, message },
    } as unknown as ShortcutArgs<never>;
  }

  it("messageShortcutUsed on a reply in a thread keeps the thread's parent for the card; on its parent, none", async () => {
    await messageShortcutUsed(fromMessage('1700000000.000100'), env.context());
    expect(decodeRunMetadata(lastView(env).private_metadata).t).toBe('1700000000.000100');
    env.reset();
    await messageShortcutUsed(fromMessage('1700000000.000400'), env.context());
    expect(decodeRunMetadata(lastView(env).private_metadata).t).toBeUndefined();
  });

  it('messageShortcutUsed opens the picker with the message linked as where the run came from', async () => {
    await messageShortcutUsed(fromMessage(), env.context());
    expect(env.called('chat.getPermalink')[0]!.args).toEqual({ channel: 'C01OPS', message_ts: '1700000000.000400' });
    const form = lastView(env);
    expect(decodeRunMetadata(form.private_metadata).s).toBe('https://slack.example/archives/C01OPS/p1');
    expect(form.blocks.some((b) => b.block_id === BLOCKS.runbookPicker)).toBe(true);
  });

  it('messageShortcutUsed without a trigger says the form did not open', async () => {
    await messageShortcutUsed(fromMessage(), { ...env.context(), triggerId: null });
    expect(env.replies[0]!.text).toMatch(/^Opening the run form failed\./);
  });

  const confirmValue = (draftId: string) => JSON.stringify({ d: draftId });

  it('confirmRunClicked starts the confirmed run once and replaces the confirmation', async () => {
    const draftId = await plainDraft();
    await confirmRunClicked(clickOf(env, 'U01ALICE', confirmValue(draftId)), env.context());
    expect(env.runs()).toEqual([PLAIN_RUN]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(env.replies[0]!.text).toContain(PLAIN);
    env.reset();
    await confirmRunClicked(clickOf(env, 'U01ALICE', confirmValue(draftId)), env.context());
    expect(env.runs()).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain(ALREADY_DONE);
  });

  it('confirmRunClicked by someone who may not run: one sentence in place of the confirmation, nothing runs', async () => {
    const draftId = await plainDraft();
    await confirmRunClicked(clickOf(env, 'U02BOB', confirmValue(draftId)), env.context('U02BOB'));
    expect(env.runs()).toEqual([]);
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('confirmRunClicked on an expired confirmation says so; nothing runs', async () => {
    await confirmRunClicked(clickOf(env, 'U01ALICE', confirmValue('gone-run')), env.context());
    expect(env.runs()).toEqual([]);
    expect(env.replies[0]!.text).toMatch(/expired/);
  });

  it('confirmEditClicked opens the form filled in with the confirmed values', async () => {
    const draftId = await plainDraft({ namespace: 'batch', deployment: 'worker' });
    await confirmEditClicked(clickOf(env, 'U01ALICE', confirmValue(draftId)), env.context());
    const form = lastView(env);
    expect(decodeRunMetadata(form.private_metadata).r).toBe(plainId);
    expect(blockOf(form, 'field_deployment').element.initial_value).toBe('worker');
    expect(env.runs()).toEqual([]);
    // The used confirmation is replaced, so it cannot be clicked again.
    expect(env.replies.map((r) => r.replaceOriginal)).toEqual([true]);
  });

  it('confirmEditClicked on an expired confirmation says so and opens nothing', async () => {
    await confirmEditClicked(clickOf(env, 'U01ALICE', confirmValue('gone-edit')), env.context());
    expect(viewsShown(env)).toEqual([]);
    expect(env.replies[0]!.text).toMatch(/expired/);
  });

  it('confirmCancelClicked replaces the confirmation with "nothing ran", and nothing runs', async () => {
    const draftId = await plainDraft();
    await confirmCancelClicked(clickOf(env, 'U01ALICE', confirmValue(draftId)), env.context());
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.replaceOriginal).toBe(true);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain('Cancelled; nothing ran.');
    expect(env.runs()).toEqual([]);
    expect(shown(env)).not.toContain('chat.postMessage');
  });
});
