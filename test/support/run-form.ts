// The run form of "Scale Kubernetes Deployment" (the emulator's demo runbook the fault tests run), as
// Slack sends its state: `namespace` marks the run so a test can find its execution.
import type { FakeEphemeral } from '../../src/sandbox/fake-slack-state.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { type Harness, modalContaining, waitFor } from './bot-harness.ts';

export const SCALE_RUNBOOK = 'Scale Kubernetes Deployment';

/** Clicks the Run now button of schedule `scheduleId` in a schedules list the person got privately. */
export function clickRunNow(h: Harness, list: FakeEphemeral, scheduleId: string, user = 'U01ALICE') {
  return h
    .user(user)
    .act(
      { kind: 'ephemeral', ephemeral: list },
      (el) => el.action_id === ACTIONS.scheduleRunNow && String(el.value).includes(scheduleId),
    );
}

export function scaleFormValues(namespace: string, channel = 'C02DEPLOYS', deployment = 'api') {
  return {
    [BLOCKS.proxy]: { [ACTIONS.proxySelect]: { type: 'static_select', selected_option: { value: 'proxy-dev' } } },
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: channel } },
    field_namespace: { value: { type: 'plain_text_input', value: namespace } },
    field_deployment: { value: { type: 'plain_text_input', value: deployment } },
    field_replicas: { value: { type: 'number_input', value: '2' } },
  };
}

/** A schedule of Scale created straight in the API (proxy-dev), as if made earlier; returns it and the runbook. */
export async function createScaleSchedule(h: Harness, params: Record<string, unknown>, cron: string) {
  const runbook = (await h.runtime.deps.catalog.all()).find((r) => r.name === SCALE_RUNBOOK)!;
  const schedule = await h.runtime.api.schedules.create({
    proxyId: 'proxy-dev',
    runbookId: runbook.id,
    runbookName: runbook.name,
    inputSchema: runbook.inputSchema,
    params: JSON.stringify(params),
    schedule: cron,
  });
  return { schedule, runbook };
}

/** Opens the run form as Alice and returns its view id. */
export async function openScaleForm(h: Harness): Promise<string> {
  await h.user().command(`run "${SCALE_RUNBOOK}"`, 'C01OPS');
  return (await waitFor(() => modalContaining(h, 'meta_proxy'), 'run modal')).id;
}

/** The execution a run form marked with `namespace` started. */
export function executionMarked(h: Harness, namespace: string) {
  return waitFor(
    () => [...h.emulator.state.executions.byId.values()].find((e) => e.params.namespace === namespace),
    'the execution',
  );
}
