// Buttons of the executions list, the status message and the result card: page the list, show one
// execution, refresh it, open its full output, re-run it. Each acks first, then hands over.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { decodeExecutionsQuery } from '../blocks/execution-list.ts';
import { decodeRerunValue } from '../blocks/execution-status.ts';
import type { HandlerContext } from '../commands/context.ts';
import { openOutputModal, openRerunModal, showExecutions, showStatus } from '../commands/executions.ts';
import type { SlackDeps } from '../deps.ts';
import { ACTIONS } from '../ids.ts';
import { interactionContext } from './interaction-context.ts';
import { reportFailure } from './report-failure.ts';

type Respond = Parameters<typeof interactionContext>[3];

function buttonValue(body: BlockAction): string {
  const action = body.actions[0] as ButtonAction | undefined;
  return action?.value ?? '';
}

export function registerExecutionActions(app: App, deps: SlackDeps): void {
  const on = (
    actionId: string | RegExp,
    what: string,
    handler: (ctx: HandlerContext, value: string) => Promise<void>,
  ) => {
    app.action<BlockAction>({ action_id: actionId }, async ({ ack, body, client, respond }) => {
      await ack();
      const ctx = interactionContext(deps, client, body, respond as Respond);
      try {
        await handler(ctx, buttonValue(body));
      } catch (err) {
        await reportFailure(ctx, err, what);
      }
    });
  };

  // Previous/Next carry `_prev`/`_next` so their action_ids are unique within the block.
  on(new RegExp(`^${ACTIONS.executionsPage}_`), 'Paging the executions', (ctx, value) =>
    showExecutions(ctx, decodeExecutionsQuery(value), true),
  );
  on(ACTIONS.executionStatus, 'Showing the execution', (ctx, value) => showStatus(ctx, value));
  on(ACTIONS.executionRefresh, 'Showing the execution', (ctx, value) => showStatus(ctx, value, true));
  on(ACTIONS.executionOutput, 'Showing the output', (ctx, value) => openOutputModal(ctx, value));
  on(ACTIONS.executionRerun, 'Opening the re-run form', async (ctx, value) => {
    const target = decodeRerunValue(value);
    if (target) await openRerunModal(ctx, target);
  });
}
