// Run now asks first: the schedules list's Run now shows what would run (runbook, inputs masked, proxy,
// the schedule's owner) with Run now / Cancel; only the confirmation's Run now calls the use case.
import { NotFoundError } from '../../api/errors.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { labelInputs } from '../../forms/labelled-inputs.ts';
import type { Actor } from '../../runs/actor.ts';
import { checkRunForm, loadRunbook } from '../../runs/run.ts';
import { describeCron } from '../../schedules/cron.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorFor } from '../kit/actor.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { channelRunChoice } from '../kit/run-start.ts';
import { buildRunNowConfirmation } from './run-now-confirm.ts';

function englishCron(cron: string): string {
  try {
    return describeCron(cron);
  } catch {
    return 'an unreadable expression';
  }
}

function paramsOf(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The person running a schedule now, and where its result goes: like every run started in a channel, the
 * channel's default result channel (judged against who saved it), else the channel itself or the thread.
 * The proxy is the schedule's own.
 */
export async function runNowActor(ctx: HandlerContext, options: { email?: boolean } = {}): Promise<Actor> {
  const choice = await channelRunChoice(ctx.deps, ctx.channelId, { threadTs: ctx.threadTs ?? null });
  const where = {
    userId: ctx.userId,
    teamId: ctx.teamId,
    channelId: ctx.channelId,
    destinationChannel: choice.destination ?? ctx.channelId,
    savedBy: choice.savedBy,
  };
  return actorFor(ctx.deps, ctx.client, where, options);
}

/** Shows the confirmation for a schedule's Run now (nothing runs yet); refusals as the gate words them. */
export async function confirmRunNow(ctx: HandlerContext, scheduleId: string): Promise<void> {
  const { deps } = ctx;
  let schedule: Awaited<ReturnType<typeof deps.api.schedules.get>>;
  try {
    schedule = await deps.api.schedules.get(scheduleId, { timeoutMs: deps.interactiveTimeoutMs });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    await ctx.respond(errorMessage('That schedule no longer exists; run /runbook schedules to see the current list.'));
    return;
  }
  const runbook = await loadRunbook(deps, schedule.runbookId);
  // The same gate as opening the run form: a runbook the person may not view or run is not shown.
  const actor = await runNowActor(ctx);
  const check = await checkRunForm(deps, actor, runbook, 'schedule-run-now');
  if (check.kind === 'refused') {
    await ctx.respond(errorMessage(check.sentence));
    return;
  }
  const owner = await deps.access.store.scheduleOwners.get(schedule.id, installationKey()).catch(() => null);
  const inputs = labelInputs(parseInputSchema(runbook.inputSchema), paramsOf(schedule.params));
  await ctx.respond(
    buildRunNowConfirmation({
      scheduleId: schedule.id,
      runbookName: runbook.name,
      inputs,
      proxy: { id: schedule.proxyId, name: deps.proxies.nameOf(schedule.proxyId) ?? (schedule.proxyName || null) },
      owner: owner ? { userId: owner.userId } : schedule.userEmail ? { email: schedule.userEmail } : null,
      cron: schedule.schedule,
      cronEnglish: englishCron(schedule.schedule),
      someoneElses: owner !== null && owner.userId !== ctx.userId,
      destination: actor.destinationChannel !== ctx.channelId ? actor.destinationChannel : null,
    }),
  );
}

/** The confirmation's Cancel: says nothing ran, in place of the confirmation. */
export async function cancelRunNow(ctx: HandlerContext): Promise<void> {
  await ctx.respond({ ...noticeMessage('Not run. Nothing was started.', 'Not run'), replaceOriginal: true });
}
