// The browse feature's listeners.
import { ACTIONS } from '../kit/ids.ts';
import { button, type Registration, suffixed } from '../kit/listen.ts';
import { detailsClicked, listCategoryChosen, listPageClicked } from './browse-actions.ts';

export const browseListeners: readonly Registration[] = [
  button(suffixed(ACTIONS.listPage), 'Paging the runbook list', 'navigating', listPageClicked),
  button(ACTIONS.listCategory, 'Filtering the runbook list', 'navigating', listCategoryChosen),
  button(ACTIONS.runbookDetails, 'Showing the runbook', 'navigating', detailsClicked),
];
