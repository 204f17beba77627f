// The schedules list's Pause, Skip next run and Resume: claimed once per click (a retried delivery does nothing), one
// use case each (src/runs/schedule-pauses.ts), then the list is redrawn in place with a notice.
import type { BlockAction } from '@slack/bolt';
import type { PauseResult } from '../../runs/schedule-pause-write.ts';
import { pauseSchedule, resumeSchedule, SKIP_MARGIN_MS, skipNextRun } from '../../runs/schedule-pauses.ts';
import { actorOf } from '../kit/access.ts';
import { claimOrSayDone, messageOf } from '../kit/click-once.ts';
import { errorMessage } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { escapeMrkdwn, inlineCode, slackDate, truncate } from '../kit/mrkdwn.ts';
import type { ScheduleRef } from './schedule-list.ts';
import { showSchedules } from './schedules.ts';

/**
 * Which button was clicked: the list message and the drawing of it the button came from (`n`). The list is
 * redrawn in place under the same ts, so the message alone would refuse a later Pause; a button drawn
 * before `n` existed falls back to the click's action_ts, which a replayed delivery keeps.
 */
function clickPlace(body: BlockAction, ref: ScheduleRef): string {
  const actionTs = (body.actions[0] as { action_ts?: string } | undefined)?.action_ts ?? '';
  return `${messageOf(body)}/${ref.n ?? actionTs}`;
}

type ChangeKind = 'pause' | 'skip' | 'resume';

const USE_CASES = { pause: pauseSchedule, skip: skipNextRun, resume: resumeSchedule } as const;
const DOING = { pause: 'Pausing', skip: 'Skipping the next run of', resume: 'Resuming' } as const;

export async function changePause(
  ctx: HandlerContext,
  kind: ChangeKind,
  body: BlockAction,
  ref: ScheduleRef,
): Promise<void> {
  const { deps } = ctx;
  const click = await claimOrSayDone(ctx, { action: `schedule-${kind}`, target: ref.id, where: clickPlace(body, ref) });
  if (!click) return;
  const actor = await actorOf(ctx);
  const result = await USE_CASES[kind](deps, actor, ref.id);
  if (result.kind === 'failed') {
    // Undone or left to the reconciler (which a repeat finds): a new click may try again.
    await click.release();
    await ctx.respond(errorMessage(`${DOING[kind]} the schedule failed. ${describeFailure(result.error)}`));
    return;
  }
  if (result.kind === 'refused' && result.reason !== 'not-found' && result.reason !== 'duplicate') {
    // Nothing changed: the button may be tried again (once allowed).
    await click.release();
    await ctx.respond(errorMessage(result.sentence));
    return;
  }
  const notice = noticeOf(result);
  await showSchedules(ctx, { runbookId: ref.r }, true, notice);
}

/** The line above the redrawn list (escaped mrkdwn). */
function noticeOf(result: Exclude<PauseResult, { kind: 'failed' }>): string {
  if (result.kind === 'refused') return `:information_source: ${escapeMrkdwn(result.sentence)}`;
  const name = `*${escapeMrkdwn(truncate(result.schedule.runbookName || result.schedule.runbookId, 120))}*`;
  if (result.kind === 'resumed') {
    return `:arrow_forward: Resumed the schedule of ${name}: ${inlineCode(truncate(result.cron, 100))} again.`;
  }
  if (result.pause.resumeAt === null) {
    return `:double_vertical_bar: Paused the schedule of ${name}: it keeps its expression, parameters and proxy and runs again once resumed.`;
  }
  const skipped = result.pause.resumeAt - SKIP_MARGIN_MS;
  const at = slackDate(Math.floor(skipped / 1000), `${new Date(skipped).toISOString().slice(0, 16)} UTC`);
  return `:fast_forward: Skipping the run of ${name} due ${at}: it resumes by itself after it.`;
}
