// What the many-workspace end-to-end tests do the same way in each installation, through the real Bolt
// pipeline: a person by id and workspace, a command's answer, and a schedule saved through the schedule form
// (a second approver and a request for approval are in oauth-harness.ts).
import type { KnownBlock } from '@slack/types';
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
