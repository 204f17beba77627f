// Who may be an actor, decided with the policy (the Slack layer says what Slack attests; this decides):
//   - a person of another organisation (Slack Connect) acts only where the policy allows external users;
//     otherwise they are refused like anyone denied, with the same audit record (recordDenial);
//   - a Workflow Builder step runs as the person Slack attests started the workflow; one nobody started
//     runs only as the identity the policy names for that (unattendedWorkflowsRunAs), or fails saying so;
//     the old "Run as" input must agree, or the step fails with a sentence saying how to fix it.
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { recordDenial } from './gate.ts';

/** A refusal of a person of another organisation (audited), or null when the policy lets them act. */
export async function refuseExternal(
  deps: Pick<RunsDeps, 'access'>,
  who: Actor,
  denial: { action: string; target: string },
): Promise<string | null> {
  const { policy } = deps.access;
  if (policy.allowsExternalUsers) return null;
  const sentence = policy.externalDenial;
  await recordDenial(deps, who, { ...denial, sentence });
  return sentence;
}

/** Who a step's inputs say started it: the person Slack attests (null: nobody), and the old "Run as". */
export interface StepPeople {
  startedBy: string | null;
  runAs: string | null;
}

/** Whom a Workflow Builder step runs as under this policy (stepActorId with the policy's settings). */
export function workflowActorOf(
  deps: Pick<RunsDeps, 'access'>,
  input: StepPeople,
): { userId: string } | { error: string } {
  const { policy } = deps.access;
  return stepActorId(input, policy.unattendedWorkflowsRunAs, policy.contact);
}

const FIX_STARTED_BY = 'edit the step: set "Started by" to "Person who used this workflow" and leave "Run as" empty';

/**
 * Whom the step runs as: the person Slack attests started the workflow, else (nobody started it) the
 * identity the policy names for such workflows; the old "Run as" must agree, or the step fails with a
 * sentence saying how to fix the workflow.
 */
export function stepActorId(
  input: StepPeople,
  unattendedRunAs: string | null,
  contact: string,
): { userId: string } | { error: string } {
  if (input.startedBy) {
    if (input.runAs && input.runAs !== input.startedBy) {
      return {
        error: `This step's "Run as" names someone other than the person who started the workflow, so nothing ran; ${FIX_STARTED_BY}.`,
      };
    }
    return { userId: input.startedBy };
  }
  if (input.runAs && input.runAs !== unattendedRunAs) {
    return {
      error: `Slack does not say who started this workflow, so its "Run as" cannot be checked and nothing ran; ${FIX_STARTED_BY}.`,
    };
  }
  if (!unattendedRunAs) {
    return {
      error: `Nobody started this workflow (it runs on a schedule or an event) and the policy names no one to run such workflows as, so nothing ran; start it from a link, button or shortcut with "Started by" set to "Person who used this workflow", or ask ${contact} to set unattendedWorkflowsRunAs in the policy.`,
    };
  }
  return { userId: unattendedRunAs };
}
