// Buttons of the executions list, the status message and the result card: page the list, show one
// execution, refresh it, open its full output, re-run it.
import { decodeRerunValue } from '../kit/execution-status.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { decodeExecutionsQuery } from './execution-list.ts';
import { openOutputModal, openRerunModal, showExecutions, showStatus } from './executions.ts';

export function executionsPageClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return showExecutions(ctx, decodeExecutionsQuery(buttonValue(body)), true);
}

export function executionDetailsClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return showStatus(ctx, buttonValue(body));
}

export function executionRefreshClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return showStatus(ctx, buttonValue(body), true);
}

export function fullOutputClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return openOutputModal(ctx, buttonValue(body));
}

export async function rerunClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const target = decodeRerunValue(buttonValue(body));
  if (target) await openRerunModal(ctx, target);
}
