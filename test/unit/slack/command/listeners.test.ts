// The /runbook line's listeners (slash command, @mention, "Open the form", pick lists), called as Bolt would
// call them (fake ack, respond, client and request context) over the real use cases: what reached the use
// case, what was shown, one refusal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runbookCommand } from '../../../../src/slack/command/commands.ts';
import { openFormValue } from '../../../../src/slack/command/mention-prompt.ts';
import { mentionReceived, openFormClicked } from '../../../../src/slack/command/mentions.ts';
import { pickClicked } from '../../../../src/slack/command/pick-actions.ts';
import { commandListeners } from '../../../../src/slack/command/register.ts';
import { ACTIONS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { CommandArgs, EventArgs } from '../../../../src/slack/kit/listen.ts';
import { decodeRunMetadata } from '../../../../src/slack/kit/run-modal.ts';
import { pickValue } from '../../../../src/slack/kit/runbook-choice.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import { type ListenerEnv, lastView, shown, startListenerEnv, viewsShown } from '../listener-env.ts';

const SCALE = 'Scale Kubernetes Deployment';

let env: ListenerEnv;
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
});
afterAll(() => env.close());
beforeEach(() => env.reset());

function typed(text: string): CommandArgs {
  return { ack: env.ack, command: { text, command: '/runbook' } } as unknown as CommandArgs;
}

function mention(text: string, extra: Record<string, unknown> = {}): EventArgs<'app_mention'> {
  return {
    event: { type: 'app_mention', user: 'U01ALICE', text, ts: '1700000000.000300', channel: 'C01OPS', ...extra },
    context: { botUserId: 'U0BOT' },
  } as unknown as EventArgs<'app_mention'>;
}

/** A mention has no trigger_id. */
const noTrigger = (userId = 'U01ALICE') => ({ ...env.context(userId), triggerId: null });

describe('command listeners', () => {
  it('registers the slash command, mentions, "Open the form" and the pick lists', () => {
    expect(commandListeners.map((r) => r.listener)).toEqual([
      runbookCommand,
      mentionReceived,
      openFormClicked,
      pickClicked,
    ]);
  });

  it('runbookCommand acks, then `run <name>` opens a loading form and fills it with that runbook', async () => {
    const scale = await env.runbook(SCALE);
    await runbookCommand(typed(`run ${SCALE}`), env.context());
    expect(env.acks).toEqual([undefined]);
    const [loading, form] = viewsShown(env);
    expect(env.called('views.open')[0]!.args.trigger_id).toBe('trigger-1');
    expect(loading!.callback_id).toBe(VIEWS.loading);
    // What reached the use case: that runbook, for this channel.
    expect(form!.callback_id).toBe(VIEWS.run);
    expect(decodeRunMetadata(form!.private_metadata)).toMatchObject({ r: scale.id, c: 'C01OPS' });
    expect(JSON.stringify(form!.blocks)).toContain(SCALE);
    expect(env.runs()).toEqual([]);
  });

  it('runbookCommand `show <name>` answers with the runbook', async () => {
    await runbookCommand(typed(`show ${PLAIN}`), env.context());
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain(PLAIN);
  });

  it('runbookCommand: a runbook the person may not view reads as unknown; the refusal is audited', async () => {
    const hidden = await env.runbook(PLAIN);
    await runbookCommand(typed(`show ${PLAIN}`), env.context('U03CAROL'));
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/^No runbook matches/);
    expect(shown(env)).not.toContain(hidden.id);
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U03CAROL', outcome: 'denied' });
  });

  it('runbookCommand answers a line it cannot read with help, and does nothing else', async () => {
    await runbookCommand(typed('frobnicate the cluster'), env.context());
    expect(env.replies).toHaveLength(1);
    expect(env.replies[0]!.text).toMatch(/frobnicate/);
    expect(viewsShown(env)).toEqual([]);
  });

  it('mentionReceived runs the line after the mention: `list` answers with the runbooks', async () => {
    await mentionReceived(mention('<@U0BOT> list kubernetes'), noTrigger());
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies[0])).toContain(PLAIN);
  });

  it('mentionReceived cannot open a form: `run <name>` answers with a button carrying the line and thread', async () => {
    await mentionReceived(mention(`<@U0BOT> run ${SCALE}`), { ...noTrigger(), threadTs: '1700000000.000300' });
    expect(viewsShown(env)).toEqual([]);
    const button = (env.replies[0]!.blocks as Array<{ elements?: Array<{ action_id: string; value: string }> }>)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTIONS.mentionOpenForm);
    expect(JSON.parse(button!.value)).toEqual({ c: `run ${SCALE}`, t: '1700000000.000300' });
  });

  it('mentionReceived ignores other bots', async () => {
    await mentionReceived(mention('<@U0BOT> list', { bot_id: 'B0OTHER' }), noTrigger());
    expect(env.replies).toEqual([]);
    expect(env.calls).toEqual([]);
  });

  it('openFormClicked runs the mentioned line again with the click, in the mention thread', async () => {
    const scale = await env.runbook(SCALE);
    const value = openFormValue(`run ${SCALE}`, '1700000000.000300')!;
    await openFormClicked(clickOf(env, 'U01ALICE', value), env.context());
    expect(env.acks).toEqual([undefined]);
    const form = lastView(env);
    expect(form.callback_id).toBe(VIEWS.run);
    expect(decodeRunMetadata(form.private_metadata)).toMatchObject({ r: scale.id, t: '1700000000.000300' });
  });

  it('openFormClicked refuses the form to someone who may not run: nothing opens but the refusal', async () => {
    const value = openFormValue(`run ${SCALE}`, null)!;
    await openFormClicked(clickOf(env, 'U02BOB', value), env.context('U02BOB'));
    const form = lastView(env);
    expect(form.title?.text).toBe('Not allowed');
    expect(JSON.stringify(form.blocks)).not.toContain('proxy');
    expect((await env.audit(1))[0]).toMatchObject({ userId: 'U02BOB', outcome: 'denied' });
  });

  it('pickClicked finishes `show`: the chosen runbook is shown', async () => {
    const runbook = await env.runbook(PLAIN);
    await pickClicked(clickOf(env, 'U01ALICE', pickValue(runbook.id, 'show')), env.context());
    expect(env.replies).toHaveLength(1);
    expect(JSON.stringify(env.replies[0]!.blocks)).toContain(PLAIN);
  });

  it('pickClicked inside a modal continues there: the run form of the chosen runbook replaces the list', async () => {
    const scale = await env.runbook(SCALE);
    const click = clickOf(env, 'U01ALICE', pickValue(scale.id, 'run'), { view: { id: 'V0PICK' } });
    await pickClicked(click, env.context());
    expect(env.called('views.open')).toEqual([]);
    const update = env.called('views.update')[0]!;
    expect(update.args.view_id).toBe('V0PICK');
    expect(decodeRunMetadata((update.args.view as { private_metadata: string }).private_metadata).r).toBe(scale.id);
  });

  it('pickClicked `executions` never turns a hidden runbook id into its name', async () => {
    const runbook = await env.runbook(PLAIN);
    await pickClicked(clickOf(env, 'U03CAROL', pickValue(runbook.id, 'executions')), env.context('U03CAROL'));
    expect(env.replies.length).toBeGreaterThan(0);
    expect(shown(env)).not.toContain(PLAIN);
  });
});
