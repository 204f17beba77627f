// The approvals feature's listeners.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { action, type Registration, view } from '../kit/listen.ts';
import { approveClicked, rejectClicked, rejectSubmitted } from './approval-actions.ts';

export const approvalsListeners: readonly Registration[] = [
  action({ action_id: ACTIONS.approvalApprove }, 'acting', approveClicked),
  // Opens the reason form; its submission decides, once per approver.
  action({ action_id: ACTIONS.approvalReject }, 'acting', rejectClicked),
  view(VIEWS.reject, rejectSubmitted),
];
