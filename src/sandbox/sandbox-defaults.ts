// What the sandbox sets up when nothing is configured, so approvals can be tried at once: Bob is
// the approver, and requests go to #approvals. A POLICY_FILE or APPROVALS_CHANNEL still wins.
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
