// The Workflow Builder step "Run a runbook" (Bolt custom function `run_runbook_step`). A thin entry
// point onto the run use case. The actor is who Slack attests started the workflow (the "Started by"
// input of type slack#/types/interactivity, whose `interactor` only Slack can fill), never an input a
// workflow's author fills in: the old "Run as" must name that same person or the step fails. A
// workflow nobody started (scheduled) runs only as the identity the policy names for that, or fails.
// Bots, the bot itself and Slackbot are never actors; a person of another organisation only where the
// policy allows external users. The one gate decides; a run that needs approval is refused
// (workflows do not wait for approvals); the live card goes to the chosen channel (else a DM).
// Without "wait for completion" the step ends as soon as the run starts; with it, the watcher ends it
// when the run ends (./workflow-step-finish.ts), exactly once, across restarts and replicas.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { describeFieldErrors } from '../../forms/typed-values.ts';
import { actor } from '../../runs/actor.ts';
import { externalRefusal, recordDenial, unattendedWorkflows } from '../../runs/gate.ts';
import { loadRunbook, RUN_AUDIT_ACTION } from '../../runs/run.ts';
import { chooseRun, proxyRefusal } from '../../runs/run-choice.ts';
import { runWithoutApproval } from '../../runs/run-direct.ts';
import { runParams } from '../../runs/run-params.ts';
import { visibilityFor } from '../../runs/visibility.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorFor } from '../kit/actor.ts';
import { describeFailure, notStartedSentence } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { STEP_INPUTS } from '../kit/ids.ts';
import type { FunctionArgs } from '../kit/listen.ts';
import { permalinkOf } from '../kit/post-to-conversation.ts';
import { postRunningCard } from '../kit/run-start.ts';
import { standingOf } from '../kit/standing.ts';
import { endOfRun, endStep, type StepEnd, stepOutputs } from './workflow-step-finish.ts';

export interface StepInputs {
  runbook: string;
  params: Record<string, unknown>;
  proxy: string | null;
  channel: string | null;
  wait: boolean;
  /** The person Slack attests started the workflow (the interactivity input's interactor); null: nobody. */
  startedBy: string | null;
  /** The old "Run as" input: a user id the workflow's author chose, checked, never trusted. */
  runAs: string | null;
}

/** The interactor's user id of a slack#/types/interactivity value (an object, or its JSON). */
function interactorOf(value: unknown): string | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  const id = (v as { interactor?: { id?: unknown } } | null)?.interactor?.id;
  return typeof id === 'string' && /^[UW][A-Z0-9]+$/.test(id) ? id : null;
}

const FIX_STARTED_BY = 'edit the step: set "Started by" to "Person who used this workflow" and leave "Run as" empty';

/**
 * Whom the step runs as: the person Slack attests started the workflow, else (nobody started it) the
 * identity the policy names for such workflows; the old "Run as" must agree, or the step fails with a
 * sentence saying how to fix the workflow.
 */
export function stepActorId(
  input: Pick<StepInputs, 'startedBy' | 'runAs'>,
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

/** The step's inputs as Workflow Builder sends them; a sentence for the workflow when they are unusable. */
export function readStepInputs(inputs: Record<string, unknown>): StepInputs | { error: string } {
  const text = (name: string) => {
    const v = inputs[name];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
  };
  const runbook = text(STEP_INPUTS.runbook);
  if (!runbook) return { error: 'The step needs a runbook (its id or name).' };
  let params: Record<string, unknown> = {};
  const raw = inputs[STEP_INPUTS.inputs];
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) params = raw as Record<string, unknown>;
  else if (typeof raw === 'string' && raw.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      params = parsed as Record<string, unknown>;
    } catch {
      return { error: 'Input values must be a JSON object, like {"namespace": "prod"}.' };
    }
  }
  const wait = inputs[STEP_INPUTS.wait];
  return {
    runbook,
    params,
    proxy: text(STEP_INPUTS.proxy),
    channel: text(STEP_INPUTS.channel),
    wait: wait === true || wait === 'true',
    startedBy: interactorOf(inputs[STEP_INPUTS.startedBy]),
    runAs: text(STEP_INPUTS.runAs),
  };
}

/** The step ran in a workflow: check, start the run once, and end the step (now, or through the watcher). */
export async function runStepExecuted(
  { inputs, client, event, fail, body }: FunctionArgs,
  ctx: HandlerContext,
): Promise<void> {
  const { deps } = ctx;
  const functionExecutionId = event.function_execution_id;
  const store = deps.access.store;
  // Before anything started, a failure needs no claim: nothing can have ended the step twice.
  const refuse = async (error: string) => {
    await fail({ error }).catch((err: unknown) => deps.logger.warn({ err }, 'could not fail the workflow step'));
  };
  let begun = false;
  try {
    const input = readStepInputs(inputs as Record<string, unknown>);
    if ('error' in input) return await refuse(input.error);
    const teamId = (body as { team_id?: string }).team_id ?? null;
    const unattended = unattendedWorkflows(deps);
    const chosen = stepActorId(input, unattended.runAs, unattended.contact);
    if ('error' in chosen) return await refuse(chosen.error);
    const standing = await standingOf(deps, client, { userId: chosen.userId });
    if (standing.kind === 'bot') {
      return await refuse('A workflow step never runs as a bot or Slackbot, so nothing ran; run it as a person.');
    }
    const external = standing.kind === 'external' ? externalRefusal(deps) : null;
    if (standing.kind === 'external' && external !== null) {
      const sentence = external;
      const who = { userId: chosen.userId, teamId: standing.teamId, groups: [], channelId: input.channel };
      const denial = { action: RUN_AUDIT_ACTION, target: input.runbook, sentence, via: 'workflow-step' as const };
      await recordDenial(deps, actor(who), denial);
      return await refuse(sentence);
    }
    const runner = await actorFor(
      deps,
      client,
      { userId: chosen.userId, teamId, channelId: input.channel, destinationChannel: input.channel },
      // The step's channel is chosen by the workflow: judged like any destination, against the person it runs as.
      { email: true, checkDestination: true },
    );
    // A runbook hidden from this person reads as unknown, but the refusal is still audited, as every run's is.
    const visible = await visibilityFor(deps, runner);
    const resolution = await visible.resolve(input.runbook, { action: RUN_AUDIT_ACTION, via: 'workflow-step' });
    if (resolution.kind !== 'match') {
      return await refuse(
        resolution.kind === 'several'
          ? `Several runbooks match "${input.runbook}"; give its id or full name.`
          : `No runbook "${input.runbook}" that this person may see.`,
      );
    }
    const runbook = await loadRunbook(deps, resolution.runbook.id);
    const checked = runParams(parseInputSchema(runbook.inputSchema), input.params);
    if (!checked.ok) return await refuse(`Input values refused: ${describeFieldErrors(checked.errors)}.`);
    // The step names its channel: that is the destination; the proxy is chosen like every run's.
    const { proxyId } = await chooseRun(deps, runbook, input.channel, {
      proxyId: input.proxy,
      destination: input.channel,
    });
    const badProxy = await proxyRefusal(deps, runbook, proxyId);
    if (badProxy !== null || !proxyId) return await refuse(badProxy ?? '');
    // Slack may deliver the event again: only the first delivery starts a run.
    const first = await store.workflowSteps.begin(
      {
        functionExecutionId,
        runbookId: runbook.id,
        runbookName: runbook.name,
        actorId: runner.userId,
        channel: input.channel,
        waitForCompletion: input.wait,
      },
      deps.now(),
      installationKey(),
    );
    if (!first) return;
    begun = true;
    const request = { runbook, proxyId, params: checked.params, via: 'workflow-step' as const };
    const result = await runWithoutApproval(deps, runner, request, 'from a workflow');
    const end = (e: StepEnd) => endStep(store, client, deps.logger, functionExecutionId, e, deps.now);
    if (result.kind !== 'started') {
      await end({ kind: 'failed', error: notStartedSentence(runbook.name, result) });
      return;
    }
    const executionId = result.run.executionIds[0] ?? '';
    await store.workflowSteps.attachExecution(functionExecutionId, executionId, deps.now(), installationKey());
    const card = await postRunningCard(deps, client, result.run);
    if (input.wait) {
      // The watcher ends the step when the run ends. A run so quick that its watch finished before the
      // step was linked to it is ended here (endStep's claim keeps that exactly once).
      const watch = await store.watches.get(executionId, installationKey());
      if (watch && watch.state !== 'active') {
        const step = await store.workflowSteps.get(functionExecutionId, installationKey());
        const execution = await deps.api.executions.get(executionId);
        if (step) await end(endOfRun(step, execution, watch.state === 'stale', await permalinkOf(client, card)));
      }
      return;
    }
    const cardLink = await permalinkOf(client, card);
    await end({ kind: 'completed', outputs: stepOutputs({ executionId, status: 'running', cardLink }) });
  } catch (err) {
    deps.logger.warn({ err, functionExecutionId }, 'workflow step failed');
    // Once begun, the step is only ever ended through the store's claim: a failure that cannot even
    // read the store (the process stopping under this listener) must not end a step that the
    // watcher of the next start will end with the run's result.
    const claimable =
      begun || (await store.workflowSteps.get(functionExecutionId, installationKey()).catch(() => null)) !== null;
    const sentence = `The runbook step failed. ${describeFailure(err)}`;
    if (!claimable) await refuse(sentence);
    else
      await endStep(
        store,
        client,
        deps.logger,
        functionExecutionId,
        { kind: 'failed', error: sentence },
        deps.now,
      ).catch(() => {});
  }
}
