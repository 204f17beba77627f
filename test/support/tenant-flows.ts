// What the many-workspace end-to-end tests do the same way in each installation, through the real Bolt
// pipeline: a second approver in the second workspace, a command's answer, a request for approval through
// the run form, and a schedule saved through the schedule form.
import type { KnownBlock } from '@slack/types';
import type { FakeMessage } from '../../src/sandbox/fake-slack-state.ts';
import type { SlackUser } from '../../src/sandbox/slack-user.ts';
import { ACTIONS, BLOCKS } from '../../src/slack/kit/ids.ts';
import { submit as stateOf } from '../unit/forms/slack-state.ts';
import { type OAuthHarness, until } from './oauth-harness.ts';

export const SCALE = 'Scale Kubernetes Deployment';
export const DRAIN = 'Drain Kubernetes Node';
export const GRID = { enterpriseId: 'E0ACMEGRID', isEnterpriseInstall: true };

/** A person as the tests name them: their id and their workspace. */
export type Person = { id: string; team: string };

/** Everything a surface shows of a message: its text and its blocks. */
export const textOf = (e: { text?: string | null; blocks?: unknown }) =>
  `${e.text ?? ''}${JSON.stringify(e.blocks ?? [])}`;

/** That person in the fake Slack (in the Grid org when their workspace is one of its). */
export const personIn = (h: OAuthHarness, p: Person): SlackUser =>
  h.user(p.id, p.team, p.team.startsWith('T0GRID') ? GRID : undefined);

/** Zed, a second person of the second workspace (T0SECOND), in every public channel. */
export function addZed(h: OAuthHarness): void {
  h.fake.state.users.push({
    id: 'U12ZED',
    name: 'zed',
    real_name: 'Zed Second',
    email: 'zed@example.com',
    tz: 'Europe/London',
    tz_label: 'Greenwich Mean Time',
    tz_offset: 0,
    team_id: 'T0SECOND',
  });
  for (const channel of h.fake.state.channels) if (!channel.is_private) channel.members?.push('U12ZED');
}

/** Sends `/runbook <command>` as `who`; the answer (ephemeral) that matches `needle`, or what came instead. */
export async function answer(
  h: OAuthHarness,
  who: Person,
  command: string,
  needle: string | RegExp = /\S/,
  channel = 'C01OPS',
) {
  const since = h.fake.state.ephemerals.length;
  await personIn(h, who).command(command, channel);
  const matches = (text: string) => (typeof needle === 'string' ? text.includes(needle) : needle.test(text));
  return until(
    async () => h.fake.state.ephemerals.slice(since).find((e) => e.user === who.id && matches(textOf(e))),
    `${who.team}: ${command}`,
  ).catch((err: Error) => {
    const got = h.fake.state.ephemerals.slice(since).filter((e) => e.user === who.id);
    throw new Error(`${err.message}; answered: ${got.map(textOf).join(' | ') || 'nothing'}`);
  });
}

/** "Drain Kubernetes Node" (which needs approval) for `node`, through the run form: the request posted. */
export async function requestDrain(
  h: OAuthHarness,
  requester: Person,
  node: string,
): Promise<{ message: FakeMessage; approvalId: string; form: string }> {
  const who = personIn(h, requester);
  await who.command(`run "${DRAIN}"`, 'C01OPS');
  const modal = await until(async () => {
    const top = who.topModal();
    return top && JSON.stringify(top.view).includes('field_node_name') ? top : null;
  }, 'the drain form');
  await who.submit(modal.id, {
    ...(stateOf(modal.view.blocks as KnownBlock[]) as Record<string, Record<string, Record<string, unknown>>>),
    [BLOCKS.channel]: { [ACTIONS.channelSelect]: { type: 'conversations_select', selected_conversation: 'C01OPS' } },
    field_node_name: { value: { type: 'plain_text_input', value: node } },
  });
  const message = await until(
    async () =>
      Object.values(h.fake.state.messages)
        .flat()
        .find(
          (m) =>
            JSON.stringify(m.blocks ?? []).includes(node) && JSON.stringify(m.blocks).includes(ACTIONS.approvalApprove),
        ),
    `the approval request for ${node}`,
  );
  const approvalId = JSON.stringify(message.blocks).match(/"action_id":"approval_approve","value":"([^"]+)"/)![1]!;
  return { message, approvalId, form: JSON.stringify(modal.view.blocks) };
}

/** Saves a schedule of "Scale Kubernetes Deployment" (15 4 * * *, deployment `deployment`) through the form. */
export async function scheduleScale(h: OAuthHarness, requester: Person, deployment: string): Promise<void> {
  const who = personIn(h, requester);
  await who.command(`schedule "${SCALE}"`, 'C01OPS');
  const form = await until(async () => {
    const top = who.topModal();
    return top && JSON.stringify(top.view).includes(BLOCKS.cron) ? top : null;
  }, `${requester.team}'s schedule form`);
  await who.submit(form.id, {
    ...stateOf(form.view.blocks as KnownBlock[], { [BLOCKS.preset]: { selected_option: { value: 'custom' } } }),
    [BLOCKS.cron]: { [ACTIONS.cronInput]: { type: 'plain_text_input', value: '15 4 * * *' } },
    field_namespace: { value: { type: 'plain_text_input', value: 'prod' } },
    field_deployment: { value: { type: 'plain_text_input', value: deployment } },
    field_replicas: { value: { type: 'number_input', value: '3' } },
  } as Record<string, Record<string, Record<string, unknown>>>);
}
