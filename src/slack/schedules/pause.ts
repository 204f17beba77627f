// The schedules list's Pause and Resume: claimed once per click (a retried delivery does nothing), one
// use case each (src/runs/schedule-pauses.ts), then the list is redrawn in place with a notice.
import type { BlockAction } from '@slack/bolt';
import { pauseSchedule, resumeSchedule } from '../../runs/schedule-pauses.ts';
import { actorOf } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { escapeMrkdwn, inlineCode, truncate } from '../kit/mrkdwn.ts';
import type { ScheduleRef } from './schedule-list.ts';
import { showSchedules } from './schedules.ts';

/** The key of one click: the same delivery again (Slack retries) carries the same action_ts. */
function clickKey(kind: 'pause' | 'resume', body: BlockAction, ref: ScheduleRef): string {
  const actionTs = (body.actions[0] as { action_ts?: string } | undefined)?.action_ts ?? '';
  return `schedule-${kind}:${ref.id}:${body.user.id}:${actionTs}`;
}

export async function changePause(
  ctx: HandlerContext,
  kind: 'pause' | 'resume',
  body: BlockAction,
  ref: ScheduleRef,
): Promise<void> {
  const { deps } = ctx;
  if (!(await deps.access.store.notifications.claim(clickKey(kind, body, ref), deps.now()))) return;
  const actor = await actorOf(ctx);
  const result =
    kind === 'pause' ? await pauseSchedule(deps, actor, ref.id) : await resumeSchedule(deps, actor, ref.id);
  if (result.kind === 'failed') {
    await ctx.respond(
      errorMessage(
        `${kind === 'pause' ? 'Pausing' : 'Resuming'} the schedule failed. ${describeFailure(result.error)}`,
      ),
    );
    return;
  }
  if (result.kind === 'refused' && result.reason !== 'not-found' && result.reason !== 'duplicate') {
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  const name = (s: { runbookName: string; runbookId: string }) =>
    `*${escapeMrkdwn(truncate(s.runbookName || s.runbookId, 120))}*`;
  const notice =
    result.kind === 'paused'
      ? `:double_vertical_bar: Paused the schedule of ${name(result.schedule)}: it keeps its expression, parameters and proxy and runs again once resumed.`
      : result.kind === 'resumed'
        ? `:arrow_forward: Resumed the schedule of ${name(result.schedule)}: ${inlineCode(truncate(result.cron, 100))} again.`
        : `:information_source: ${escapeMrkdwn(result.sentence)}`;
  await showSchedules(ctx, { runbookId: ref.r }, true, notice);
}
