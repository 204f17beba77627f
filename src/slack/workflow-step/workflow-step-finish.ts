// Ending a Workflow Builder "Run a runbook" step, exactly once: a run that was started without
// waiting ends the step at once; a run the step waits for ends it when the watcher delivers the
// result (the FinishHook below, wired in runtime.ts), after restarts and on any replica. The store's
// claim (`workflowSteps.finish`, a compare-and-set from 'pending') is taken before Slack is called;
// a call that definitely failed reopens it so the watcher tries again.
import type { WebClient } from '@slack/web-api';
import type { Execution } from '../../api/schemas.ts';
import type { Logger } from '../../logger.ts';
import { plainTextMentions } from '../../mentions.ts';
import type { FinishHook } from '../../runs/run-tracker.ts';
import type { WorkflowStep } from '../../store/saved-runs.ts';
import type { Store } from '../../store/store.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { STEP_OUTPUTS } from '../kit/ids.ts';
import { permalinkOf, slackErrorCode } from '../kit/post-to-conversation.ts';

/** Output tail sent to the workflow: the last lines, at most this many characters. */
export const OUTPUT_TAIL_CHARS = 1_000;
const OUTPUT_TAIL_LINES = 20;

/** Slack ended the step itself (timed out, cancelled): there is nothing left to complete. */
const ALREADY_ENDED = new Set(['execution_not_in_running_state', 'function_execution_not_found']);

export type StepEnd = { kind: 'completed'; outputs: Record<string, string> } | { kind: 'failed'; error: string };

export function outputTail(output: string | null | undefined): string {
  if (!output) return '';
  const lines = output.replace(/\s+$/, '').split('\n');
  const tail = lines.slice(-OUTPUT_TAIL_LINES).join('\n');
  return tail.length <= OUTPUT_TAIL_CHARS ? tail : `…${tail.slice(tail.length - OUTPUT_TAIL_CHARS + 1)}`;
}

/** The outputs of a step whose run was started (and, when waited for, ended well). */
export function stepOutputs(p: {
  executionId: string;
  status: string;
  reason?: string | null;
  output?: string | null;
  cardLink?: string | null;
}): Record<string, string> {
  return {
    [STEP_OUTPUTS.executionId]: p.executionId,
    [STEP_OUTPUTS.status]: p.status,
    ...(p.reason ? { [STEP_OUTPUTS.reason]: p.reason } : {}),
    ...(p.output ? { [STEP_OUTPUTS.outputTail]: outputTail(p.output) } : {}),
    ...(p.cardLink ? { [STEP_OUTPUTS.cardLink]: p.cardLink } : {}),
  };
}

/** How a waited-for step ends, from the run's final record. */
export function endOfRun(step: WorkflowStep, execution: Execution, stale: boolean, cardLink: string | null): StepEnd {
  const id = step.executionId ?? execution.id;
  const where = cardLink ? ` See ${cardLink}` : '';
  if (stale) {
    return {
      kind: 'failed',
      error: `${step.runbookName} (execution ${id}) did not finish in time; no result came.${where}`,
    };
  }
  if (execution.executionStatus === 'EXECUTION_STATUS_SUCCEEDED') {
    return {
      kind: 'completed',
      outputs: stepOutputs({ executionId: id, status: 'succeeded', output: execution.output, cardLink }),
    };
  }
  const reason = execution.reason ? `: ${execution.reason}` : '';
  return { kind: 'failed', error: `${step.runbookName} failed (execution ${id})${reason}.${where}` };
}

/** Ends the step once: claim in the store, then tell Slack; false when someone else already ended it. */
export async function endStep(
  store: Store,
  client: WebClient,
  logger: Logger,
  functionExecutionId: string,
  end: StepEnd,
  now: () => number,
): Promise<boolean> {
  const won = await store.workflowSteps.finish(
    functionExecutionId,
    end.kind,
    end.kind === 'completed' ? { outputs: end.outputs } : { error: end.error },
    now(),
    installationKey(),
  );
  if (!won) return false;
  try {
    if (end.kind === 'completed') {
      await client.functions.completeSuccess({ function_execution_id: functionExecutionId, outputs: end.outputs });
    } else {
      // The error is plain text: sealed mentions (a denial's approvers, a destination's owner) written out.
      const error = plainTextMentions(end.error);
      await client.functions.completeError({ function_execution_id: functionExecutionId, error });
    }
    return true;
  } catch (err) {
    const code = slackErrorCode(err);
    if (code && ALREADY_ENDED.has(code)) {
      logger.warn({ functionExecutionId, code }, 'Slack had already ended the workflow step');
      return true;
    }
    // Not delivered (rate limit, 5xx, network): give the claim back so a later attempt sends it.
    await store.workflowSteps.reopen(functionExecutionId, now(), installationKey());
    throw err;
  }
}

/** The watcher's hook: a step waiting for this run ends now, with the run's outputs or its failure. */
export function finishWaitingSteps(
  deps: { store: Store; logger: Logger; now: () => number },
  client: WebClient,
): FinishHook {
  return async ({ watch, execution, stale, channel, messageTs }) => {
    // The installation in scope: the watcher delivers each run in its own (another tenant may hold the id).
    const step = await deps.store.workflowSteps.pendingForExecution(watch.executionId, installationKey());
    if (!step?.waitForCompletion) return;
    const cardLink = await permalinkOf(client, { channel, ts: messageTs });
    const end = endOfRun(step, execution, stale, cardLink);
    await endStep(deps.store, client, deps.logger, step.functionExecutionId, end, deps.now);
  };
}
