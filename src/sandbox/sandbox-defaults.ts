// What the sandbox sets up when nothing is configured, so approvals can be tried at once: Bob is
// the approver, and requests go to #approvals. A POLICY_FILE or APPROVALS_CHANNEL still wins.
// With many workspaces (SANDBOX_MANY_WORKSPACES) each workspace has approvers of its own: the policy names
// one user group per workspace (Bob's, Sid's in the second, Uma's in Acme) and no channel for all, so each
// workspace's admin narrows approvers to their own group and picks the channel in App Home; the first
// workspace starts with #approvals and Bob's group, as its admin would set them.
import { parsePolicy } from '../policy/load-policy.ts';
import type { Policy } from '../policy/policy.ts';

export const SANDBOX_APPROVALS_CHANNEL = 'C03APPROVALS';

export const SANDBOX_POLICY_YAML = `
contact: "Bob (switch to him in the sandbox)"
approvers: { users: [U02BOB] }
`;

export function sandboxPolicy(): Policy {
  return parsePolicy(SANDBOX_POLICY_YAML, 'sandbox-policy.yaml');
}

/**
 * Each sandbox workspace's approver group (id → handle, members, workspace): the first is the fake Slack's
 * own; Acme's is of its US workspace (Uma's), one of the org's that the org-wide install serves.
 */
export const SANDBOX_APPROVER_GROUPS = {
  S0APPROVERS: { handle: 'approvers', users: ['U02BOB'], teamId: 'T0SANDBOX' },
  S0SECONDAPPROVERS: { handle: 'second-approvers', users: ['U12SID'], teamId: 'T0SECOND' },
  S0ACMEAPPROVERS: { handle: 'acme-approvers', users: ['U22UMA'], teamId: 'T0GRIDB' },
} as const;

export const SANDBOX_MANY_WORKSPACES_POLICY_YAML = `
contact: "an approver of your workspace (switch to them in the sandbox)"
approvers: { groups: [${Object.keys(SANDBOX_APPROVER_GROUPS).join(', ')}] }
`;

export function sandboxManyWorkspacesPolicy(): Policy {
  return parsePolicy(SANDBOX_MANY_WORKSPACES_POLICY_YAML, 'sandbox-policy.yaml');
}
