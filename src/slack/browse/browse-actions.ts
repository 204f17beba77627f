// The runbook browser's buttons and selects: paging, the category filter and a runbook's Details.
import type { StaticSelectAction } from '@slack/bolt';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { decodeListState } from '../kit/runbook-list.ts';
import { showList, showRunbook } from './browse.ts';

export function listPageClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return showList(ctx, decodeListState(buttonValue(body)), true);
}

export function listCategoryChosen({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const action = body.actions[0] as StaticSelectAction;
  const blockState = action.block_id.startsWith('list_filters:') ? action.block_id.slice('list_filters:'.length) : '';
  const state = decodeListState(blockState);
  const chosen = action.selected_option?.value;
  return showList(ctx, { ...state, c: chosen && chosen !== '*' ? chosen : null, p: 0 }, true);
}

export function detailsClicked({ body }: ActionArgs, ctx: HandlerContext): Promise<void> {
  return showRunbook(ctx, { id: buttonValue(body) });
}
