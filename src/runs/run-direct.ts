// Runs that start without a person looking at a form: a Workflow Builder step, `--now` (one-line
// runs and aliases). They go through requestRun — the one gate — like every run. What differs is
// approval: nobody is there to wait for one, so a run that needs approval is refused (audited like a
// denial, `run.start` naming the entry point) instead of becoming a request. The person is told to use the
// form, where a request is made.
import type { Workflow } from '../api/schemas.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import { approvalNeedFor, placeOfActor, type RunApprovalNeed, recordDenial } from './gate.ts';
import {
  checkRunForm,
  type EnteredRun,
  type Refusal,
  RUN_AUDIT_ACTION,
  RUN_OPEN_AUDIT_ACTION,
  type RunResult,
  refused,
  requestRun,
} from './run.ts';
import type { RunEntry } from './run-entry.ts';

export type DirectRunResult =
  | RunResult
  | { kind: 'needs-approval'; runbook: Workflow; need: RunApprovalNeed; sentence: string };

/** Whether the actor's run of this runbook needs approval (from the API's flag or the policy, for their team). */
export function approvalNeeded(deps: RunsDeps, actor: Actor, runbook: Workflow): RunApprovalNeed {
  return approvalNeedFor(deps, runbook, placeOfActor(actor));
}

export function needsApprovalSentence(runbook: Workflow, need: RunApprovalNeed, how: string): string {
  return `${runbook.name} needs approval (${need.reasons.join('; ')}), so it cannot start ${how}. Open its form with /runbook run to ask the approvers.`;
}

/**
 * The gate first (a denial is never hidden behind "needs approval"), then: needs approval → refused,
 * else the run starts. `how` completes "cannot start …" ("from a workflow", "with --now").
 */
export async function runWithoutApproval(
  deps: RunsDeps,
  actor: Actor,
  request: EnteredRun,
  how: string,
): Promise<DirectRunResult> {
  let need: RunApprovalNeed | null = null;
  const result = await requestRun(deps, actor, request, {
    admitted: async () => {
      const n = approvalNeeded(deps, actor, request.runbook);
      if (!n.required) return true;
      need = n;
      return false;
    },
  });
  const refused = need as RunApprovalNeed | null;
  if (!refused) return result;
  const sentence = needsApprovalSentence(request.runbook, refused, how);
  await recordDenial(deps, actor, {
    action: RUN_AUDIT_ACTION,
    target: `${request.runbook.name} (${request.runbook.id})`,
    sentence,
    via: request.via,
  });
  return { kind: 'needs-approval', runbook: request.runbook, need: refused, sentence };
}

/**
 * May the actor be shown the confirmation of a run without a form (`--now`, an alias)? The form's gate
 * (`checkRunForm`), then: a runbook that needs approval is refused here already, audited like every
 * refusal (`run.open`, naming the entry point).
 */
export async function checkRunWithoutApproval(
  deps: RunsDeps,
  actor: Actor,
  runbook: Workflow,
  via: RunEntry,
  how: string,
): Promise<Refusal | { kind: 'ok' }> {
  const check = await checkRunForm(deps, actor, runbook, via);
  if (check.kind === 'refused') return check;
  if (!check.need.required) return { kind: 'ok' };
  const sentence = needsApprovalSentence(runbook, check.need, how);
  await recordDenial(deps, actor, {
    action: RUN_OPEN_AUDIT_ACTION,
    target: `${runbook.name} (${runbook.id})`,
    sentence,
    via,
  });
  return refused('denied', sentence);
}
