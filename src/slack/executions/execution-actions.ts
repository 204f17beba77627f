// Buttons of the executions list, the status message and the result card: page the list, show one
// execution, refresh it, open its full output, re-run it. Each acks first, then hands over.
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../kit/deps.ts';
import { decodeRerunValue } from '../kit/execution-status.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { ACTIONS } from '../kit/ids.ts';
import { buttonValue, onAction } from '../kit/on-action.ts';
import { decodeExecutionsQuery } from './execution-list.ts';
import { openOutputModal, openRerunModal, showExecutions, showStatus } from './executions.ts';

export function registerExecutionActions(app: App, deps: SlackDeps): void {
  const on = (
    actionId: string | RegExp,
    what: string,
    handler: (ctx: HandlerContext, value: string) => Promise<void>,
  ) => onAction(app, deps, actionId, what, (ctx, body) => handler(ctx, buttonValue(body)));

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
