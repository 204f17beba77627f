// Bodies of the inbound requests the scenarios send, built with the same builders the sandbox
// and the integration tests use, so the bot sees exactly what Slack would send.
import type { FakeSlack } from '../../src/sandbox/fake-slack-api.ts';
import {
  blockSuggestionPayload,
  formRequest,
  interactivityBody,
  type SlackRequestBody,
  slashCommandBody,
} from '../../src/sandbox/slack-requests.ts';
import { ACTIONS, BLOCKS, VIEWS } from '../../src/slack/kit/ids.ts';
import { TEAM_ID } from './bench-stack.ts';

export const BENCH_USER = 'U01ALICE';
export const BENCH_CHANNEL = 'C01OPS';

/** `/runbook <text>`; trigger and response_url come from the fake Slack so the bot's follow-ups succeed. */
export function slashCommand(
  fake: FakeSlack | null,
  text: string,
  user = BENCH_USER,
  team = TEAM_ID,
): SlackRequestBody {
  const triggerId = fake ? fake.newTriggerId(user) : `${Date.now()}.bench.${Math.random().toString(16).slice(2)}`;
  const responseUrl = fake
    ? fake.newResponseUrl({ channel: BENCH_CHANNEL, user })
    : 'http://127.0.0.1:9/commands/unused';
  return formRequest(
    slashCommandBody({
      command: '/runbook',
      text,
      userId: user,
      channelId: BENCH_CHANNEL,
      teamId: team,
      triggerId,
      responseUrl,
    }),
  );
}

/** What the trigger id of a slash command body is (to match it to the views.open it causes). */
export function triggerIdOf(body: SlackRequestBody): string {
  return new URLSearchParams(body.raw).get('trigger_id') ?? '';
}

/** A keystroke in the run modal's runbook picker. */
export function runbookSuggestion(query: string, user = BENCH_USER): SlackRequestBody {
  return formRequest(
    interactivityBody(
      blockSuggestionPayload({
        userId: user,
        teamId: TEAM_ID,
        actionId: ACTIONS.runbookPicker,
        blockId: BLOCKS.runbookPicker,
        value: query,
        view: {
          id: 'VBENCH0001',
          type: 'modal',
          callback_id: VIEWS.run,
          private_metadata: '{"r":null,"c":"C01OPS"}',
          state: { values: {} },
        },
      }),
    ),
  );
}
