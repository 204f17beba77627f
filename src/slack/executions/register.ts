// The executions feature's listeners.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { button, type Registration, suffixed, view } from '../kit/listen.ts';
import {
  executionDetailsClicked,
  executionRefreshClicked,
  executionsPageClicked,
  fullOutputClicked,
  rerunClicked,
} from './execution-actions.ts';
import { findClicked, findSubmitted, outputPageClicked } from './output-actions.ts';

export const executionsListeners: readonly Registration[] = [
  // Previous/Next carry `_prev`/`_next` so their action_ids are unique within the block.
  button(suffixed(ACTIONS.executionsPage), 'Paging the executions', 'navigating', executionsPageClicked),
  button(ACTIONS.executionStatus, 'Showing the execution', 'navigating', executionDetailsClicked),
  button(ACTIONS.executionRefresh, 'Showing the execution', 'navigating', executionRefreshClicked),
  button(ACTIONS.executionOutput, 'Showing the output', 'navigating', fullOutputClicked),
  button(ACTIONS.executionRerun, 'Opening the re-run form', 'navigating', rerunClicked),
  button(ACTIONS.executionFind, 'Opening Find in output', 'navigating', findClicked),
  button(suffixed(ACTIONS.outputPage), 'Paging the output', 'navigating', outputPageClicked),
  view(VIEWS.outputFind, findSubmitted),
];
