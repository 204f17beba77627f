// The whole output, from the result card: "Full output" pages (Previous / Next update the modal in
// place), "Find in output" opens a search form whose submission shows the matching lines under it.
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from '../kit/deadline.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs, ViewArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { loadVisibleExecution } from './executions.ts';
import {
  buildFindModal,
  buildOutputPage,
  decodeOutputPage,
  FIND_ACTION,
  FIND_BLOCK,
  findInOutput,
} from './output-pages.ts';

export async function findClicked({ body, client }: ActionArgs): Promise<void> {
  await client.views.open({ trigger_id: body.trigger_id, view: buildFindModal(buttonValue(body)) });
}

export async function outputPageClicked({ body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const target = decodeOutputPage(buttonValue(body));
  const viewId = body.view?.id;
  if (!target || !viewId) return;
  const execution = await loadVisibleExecution(ctx, target.executionId);
  await client.views.update({ view_id: viewId, view: buildOutputPage(execution, target.page) });
}

export async function findSubmitted({ ack, view }: ViewArgs, ctx: HandlerContext): Promise<void> {
  const executionId = view.private_metadata;
  const query = (view.state.values[FIND_BLOCK]?.[FIND_ACTION]?.value ?? '').trim();
  if (query === '') {
    await ack({ response_action: 'errors', errors: { [FIND_BLOCK]: 'Type what to look for.' } });
    return;
  }
  try {
    const execution = await withDeadline(loadVisibleExecution(ctx, executionId), SUBMIT_DEADLINE_MS);
    await ack({
      response_action: 'update',
      view: buildFindModal(executionId, findInOutput(execution, query), query),
    });
  } catch (err) {
    const sentence =
      err instanceof DeadlineError ? 'The output took too long to load; try again in a moment.' : describeFailure(err);
    await ack({ response_action: 'errors', errors: { [FIND_BLOCK]: sentence.slice(0, 150) } });
  }
}
