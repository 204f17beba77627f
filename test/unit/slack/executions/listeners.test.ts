// The executions feature's listeners, called as Bolt would call them, over the real use cases.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  executionDetailsClicked,
  executionRefreshClicked,
  executionsPageClicked,
  fullOutputClicked,
  rerunClicked,
} from '../../../../src/slack/executions/execution-actions.ts';
import { encodeExecutionsQuery } from '../../../../src/slack/executions/execution-list.ts';
import { findClicked, findSubmitted, outputPageClicked } from '../../../../src/slack/executions/output-actions.ts';
import { encodeOutputPage, FIND_ACTION, FIND_BLOCK } from '../../../../src/slack/executions/output-pages.ts';
import { rerunValue } from '../../../../src/slack/kit/execution-status.ts';
import { VIEWS } from '../../../../src/slack/kit/ids.ts';
import type { ViewArgs } from '../../../../src/slack/kit/listen.ts';
import { PLAIN, TABLE_POLICY } from '../../../support/authorization-cases.ts';
import { clickOf } from '../listener-args.ts';
import { aliceRuns, type ListenerEnv, startListenerEnv } from '../listener-env.ts';

let env: ListenerEnv;
let executionId = '';
let runbookId = '';
beforeAll(async () => {
  env = await startListenerEnv(TABLE_POLICY);
  runbookId = (await env.runbook(PLAIN)).id;
  const result = await aliceRuns(env, PLAIN);
  if (result.kind !== 'started') throw new Error(`expected a run, got ${result.kind}`);
  executionId = result.run.executionIds[0]!;
});
afterAll(() => env.close());
beforeEach(() => env.reset());

describe('executions listeners', () => {
  it('executionDetailsClicked shows the execution of a runbook the person may view', async () => {
    await executionDetailsClicked(clickOf(env, 'U01ALICE', executionId), env.context());
    expect(JSON.stringify(env.replies)).toContain(PLAIN);
  });

  it('executionDetailsClicked never names the runbook of an execution the person may not view', async () => {
    // The refusal is a sentence (the button's registration reports it); it never names the runbook.
    const refused = executionDetailsClicked(clickOf(env, 'U03CAROL', executionId), env.context('U03CAROL'));
    await expect(refused).rejects.toThrow(/may not view that runbook/);
    await expect(refused).rejects.not.toThrow(PLAIN);
    expect(env.replies).toEqual([]);
  });

  it('executionRefreshClicked replaces the status message', async () => {
    await executionRefreshClicked(clickOf(env, 'U01ALICE', executionId), env.context());
    expect(env.replies.map((r) => r.replaceOriginal)).toEqual([true]);
    expect(JSON.stringify(env.replies)).toContain(PLAIN);
  });

  it('executionsPageClicked shows the list in place of the old one', async () => {
    const value = encodeExecutionsQuery({ runbookQuery: null, status: null, last: null, tokens: [] });
    await executionsPageClicked(clickOf(env, 'U01ALICE', value), env.context());
    expect(env.replies.map((r) => r.replaceOriginal)).toEqual([true]);
  });

  it('fullOutputClicked opens the output in a modal', async () => {
    await fullOutputClicked(clickOf(env, 'U01ALICE', executionId), env.context());
    expect(env.called('views.open').length + env.called('views.update').length).toBeGreaterThan(0);
  });

  it('rerunClicked opens the run form prefilled from the execution', async () => {
    await rerunClicked(clickOf(env, 'U01ALICE', rerunValue(executionId, runbookId)), env.context());
    const views = [...env.called('views.open'), ...env.called('views.update')].map((c) => c.args.view);
    expect(JSON.stringify(views)).toContain(VIEWS.run);
  });

  it('findClicked opens the find form for that execution', async () => {
    await findClicked(clickOf(env, 'U01ALICE', executionId));
    const view = env.called('views.open')[0]!.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe(VIEWS.outputFind);
    expect(view.private_metadata).toBe(executionId);
  });

  it('outputPageClicked updates the output modal in place', async () => {
    const args = clickOf(env, 'U01ALICE', encodeOutputPage(executionId, 0), { view: { id: 'V0OUT' } });
    await outputPageClicked(args, env.context());
    expect(env.called('views.update').map((c) => c.args.view_id)).toEqual(['V0OUT']);
  });

  const find = (query: string) =>
    ({
      ack: env.ack,
      body: { user: { id: 'U01ALICE' } },
      view: { private_metadata: executionId, state: { values: { [FIND_BLOCK]: { [FIND_ACTION]: { value: query } } } } },
    }) as unknown as ViewArgs;

  it('findSubmitted answers with the form updated to show the matches', async () => {
    await findSubmitted(find('step'), env.context());
    expect((env.acks[0] as { response_action: string }).response_action).toBe('update');
  });

  it('findSubmitted with nothing typed keeps the form open with a field error', async () => {
    await findSubmitted(find('  '), env.context());
    expect(env.acks).toEqual([{ response_action: 'errors', errors: { [FIND_BLOCK]: 'Type what to look for.' } }]);
  });
});
