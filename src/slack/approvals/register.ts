// The approvals feature's listeners.
import { ACTIONS, VIEWS } from '../kit/ids.ts';
import { action, type Registration, view } from '../kit/listen.ts';
import { approveClicked, rejectClicked, rejectSubmitted } from './approval-actions.ts';

export const approvalsListeners: readonly Registration[] = [
  action({ action_id: ACTIONS.approvalApprove }, approveClicked),
  action({ action_id: ACTIONS.approvalReject }, rejectClicked),
  view(VIEWS.reject, rejectSubmitted),
];
