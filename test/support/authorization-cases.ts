// The authorization cases every entry point is checked against, shared by the use-case table
// (test/unit/runs) and the same table through the real Bolt pipeline (test/integration). Add a row
// for a new entry point in both tables; add a column here only with an expectation for every row.

export const TABLE_POLICY = `
contact: "#platform"
approvers: { users: [U0APPROVER] }
rules:
  - name: bob may not run
    effect: deny
    actions: [run]
    users: [U02BOB]
  - name: carol does not see restarts
    effect: deny
    actions: [view]
    users: [U03CAROL]
    runbooks: { names: ["Restart *"] }
  - name: nothing runs into deploys
    effect: deny
    actions: [run]
    channels: [C02DEPLOYS]
  - name: bob does not read the trail
    effect: deny
    actions: [audit]
    users: [U02BOB]
`;

/** The runbook of every case but "needs approval" (which uses one the API marks requiresApproval). */
export const PLAIN = 'Restart Kubernetes Deployment';
export const NEEDS_APPROVAL = 'Drain Kubernetes Node';

export const PARAMS: Record<string, Record<string, unknown>> = {
  [PLAIN]: { namespace: 'web', deployment: 'api' },
  [NEEDS_APPROVAL]: { node_name: 'node-1' },
};

export type CaseName = 'allowed' | 'denied by run' | 'denied by view' | 'denied in destination only' | 'needs approval';

export interface Case {
  userId: string;
  channelId: string;
  destinationChannel: string;
  runbook: string;
}

export const CASES: Record<CaseName, Case> = {
  allowed: { userId: 'U01ALICE', channelId: 'C01OPS', destinationChannel: 'C01OPS', runbook: PLAIN },
  'denied by run': { userId: 'U02BOB', channelId: 'C01OPS', destinationChannel: 'C01OPS', runbook: PLAIN },
  'denied by view': { userId: 'U03CAROL', channelId: 'C01OPS', destinationChannel: 'C01OPS', runbook: PLAIN },
  'denied in destination only': {
    userId: 'U01ALICE',
    channelId: 'C01OPS',
    destinationChannel: 'C02DEPLOYS',
    runbook: PLAIN,
  },
  'needs approval': { userId: 'U01ALICE', channelId: 'C01OPS', destinationChannel: 'C01OPS', runbook: NEEDS_APPROVAL },
};

/** ok: it happened; approval: it became an approval request; denied/hidden: refused (hidden: by `view`). */
export type Outcome = 'ok' | 'approval' | 'denied' | 'hidden';

/** Anything that makes a run happen now. */
export const SAME_AS_RUN: Record<CaseName, Outcome> = {
  allowed: 'ok',
  'denied by run': 'denied',
  'denied by view': 'hidden',
  'denied in destination only': 'denied',
  'needs approval': 'approval',
};

/** Seeing-only actions: only `view` matters. */
export const VIEW_ONLY: Record<CaseName, Outcome> = {
  allowed: 'ok',
  'denied by run': 'ok',
  'denied by view': 'hidden',
  'denied in destination only': 'ok',
  'needs approval': 'ok',
};

/** Reading the audit trail: no runbook involved, only the `audit` rule (bob's is denied). */
export const AUDIT_ONLY: Record<CaseName, Outcome> = {
  allowed: 'ok',
  'denied by run': 'denied',
  'denied by view': 'ok',
  'denied in destination only': 'ok',
  'needs approval': 'ok',
};

/** Everyone may do everything but U04DAVE, who may not schedule (nor pause, skip or resume schedules). */
export const DAVE_MAY_NOT_SCHEDULE = `
contact: "#platform"
rules:
  - name: dave does not schedule
    effect: deny
    actions: [schedule]
    users: [U04DAVE]
`;
