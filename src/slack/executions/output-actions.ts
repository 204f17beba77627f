// The whole output, from the result card: "Full output" pages (Previous / Next update the modal in
// place), "Find in output" opens a search form whose submission shows the matching lines under it.
import type { App, ViewSubmitAction } from '@slack/bolt';
import { DeadlineError, SUBMIT_DEADLINE_MS, withDeadline } from '../kit/deadline.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { buttonValue, onAction } from '../kit/on-action.ts';
import { loadVisibleExecution } from './executions.ts';
import {
  buildFindModal,
  buildOutputPage,
  decodeOutputPage,
  FIND_ACTION,
  FIND_BLOCK,
  findInOutput,
} from './output-pages.ts';

export function registerOutputActions(app: App, deps: SlackDeps): void {
  onAction(app, deps, ACTIONS.executionFind, 'Opening Find in output', async (_ctx, body, client) => {
    await client.views.open({ trigger_id: body.trigger_id, view: buildFindModal(buttonValue(body)) });
  });

  onAction(app, deps, new RegExp(`^${ACTIONS.outputPage}_`), 'Paging the output', async (ctx, body, client) => {
    const target = decodeOutputPage(buttonValue(body));
    const viewId = body.view?.id;
    if (!target || !viewId) return;
    const execution = await loadVisibleExecution(ctx, target.executionId);
    await client.views.update({ view_id: viewId, view: buildOutputPage(execution, target.page) });
  });

  app.view<ViewSubmitAction>(VIEWS.outputFind, async ({ ack, body, view, client }) => {
    const executionId = view.private_metadata;
    const query = (view.state.values[FIND_BLOCK]?.[FIND_ACTION]?.value ?? '').trim();
    if (query === '') {
      await ack({ response_action: 'errors', errors: { [FIND_BLOCK]: 'Type what to look for.' } });
      return;
    }
    const ctx = interactionContext(deps, client, body, undefined);
    try {
      const execution = await withDeadline(loadVisibleExecution(ctx, executionId), SUBMIT_DEADLINE_MS);
      await ack({
        response_action: 'update',
        view: buildFindModal(executionId, findInOutput(execution, query), query),
      });
    } catch (err) {
      const sentence =
        err instanceof DeadlineError
          ? 'The output took too long to load; try again in a moment.'
          : describeFailure(err);
      await ack({ response_action: 'errors', errors: { [FIND_BLOCK]: sentence.slice(0, 150) } });
    }
  });
}
