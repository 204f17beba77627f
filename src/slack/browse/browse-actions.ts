// The runbook browser's buttons and selects: paging, the category filter and a runbook's Details.
import type { App, StaticSelectAction } from '@slack/bolt';
import type { SlackDeps } from '../kit/deps.ts';
import { ACTIONS } from '../kit/ids.ts';
import { type ActionHandler, buttonValue, onAction } from '../kit/on-action.ts';
import { decodeListState } from '../kit/runbook-list.ts';
import { showList, showRunbook } from './browse.ts';

export function registerBrowseActions(app: App, deps: SlackDeps): void {
  const on = (actionId: string | RegExp, what: string, handler: ActionHandler) =>
    onAction(app, deps, actionId, what, handler);

  on(new RegExp(`^${ACTIONS.listPage}_`), 'Paging the runbook list', (ctx, body) =>
    showList(ctx, decodeListState(buttonValue(body)), true),
  );

  on(ACTIONS.listCategory, 'Filtering the runbook list', (ctx, body) => {
    const action = body.actions[0] as StaticSelectAction;
    const blockState = action.block_id.startsWith('list_filters:') ? action.block_id.slice('list_filters:'.length) : '';
    const state = decodeListState(blockState);
    const chosen = action.selected_option?.value;
    return showList(ctx, { ...state, c: chosen && chosen !== '*' ? chosen : null, p: 0 }, true);
  });

  on(ACTIONS.runbookDetails, 'Showing the runbook', (ctx, body) => showRunbook(ctx, { id: buttonValue(body) }));
}
