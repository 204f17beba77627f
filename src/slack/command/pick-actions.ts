// A pick list (several runbooks matched what was typed) finishes the command it came from: show, run,
// schedules (the forecast when `--next` was typed), executions (its --status/--last kept) or health of the
// chosen runbook; a `run … --now` line carries on to its confirmation; inside a modal it continues there.

import { FORECAST_WINDOWS, type ForecastWindow } from '../../schedules/forecast.ts';
import { showRunbook } from '../browse/browse.ts';
import { showExecutions } from '../executions/executions.ts';
import { showHealth } from '../health/health.ts';
import { visibleTo } from '../kit/access.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ActionArgs } from '../kit/listen.ts';
import { buttonValue } from '../kit/on-action.ts';
import { openRunModal, runModalView } from '../kit/run-start.ts';
import { decodePick } from '../kit/runbook-choice.ts';
import { continueLineRun } from '../run/one-line.ts';
import { showForecast } from '../schedules/forecast.ts';
import { openScheduleModal, scheduleModalView, showSchedules } from '../schedules/schedules.ts';

export async function pickClicked({ body, client }: ActionArgs, ctx: HandlerContext): Promise<void> {
  const { deps } = ctx;
  const pick = decodePick(buttonValue(body));
  if (!pick) return;
  // A pick list inside a modal (from `run <name>` with several matches) continues in that modal.
  if (body.view?.id && (pick.next === 'run' || pick.next === 'schedule')) {
    if (pick.next === 'run') {
      // The line's values, kept for the pick: the form opens with them, as for a single match.
      const line = pick.keep.line ? await deps.drafts.takeLine(pick.keep.line, ctx.userId) : null;
      const typed = line
        ? { typed: line.values, proxyId: line.proxyId, destination: line.destination, threadTs: line.threadTs }
        : {};
      const expired =
        pick.keep.line && !line ? { notes: [':warning: The values typed have expired; fill them in below.'] } : {};
      const view = await runModalView(deps, { runbookId: pick.id, ...typed, ...expired }, ctx.channelId, 'run', {
        userId: ctx.userId,
        client,
        teamId: ctx.teamId,
        enterpriseId: ctx.enterpriseId ?? null,
      });
      await client.views.update({ view_id: body.view.id, view });
    } else {
      await client.views.update({
        view_id: body.view.id,
        view: await scheduleModalView(ctx, { runbookId: pick.id }),
      });
    }
    return;
  }
  switch (pick.next) {
    case 'show':
      return showRunbook(ctx, { id: pick.id });
    case 'run':
      // Picked for a `--now` line: the confirmation with the values typed, as a single match gives.
      if (pick.keep.line) return continueLineRun(ctx, pick.id, pick.keep.line);
      return openRunModal(ctx, { runbookId: pick.id });
    case 'schedule':
      return openScheduleModal(ctx, { runbookId: pick.id });
    case 'schedules':
      // Picked from `/runbook schedules <name> --next 24h`: the forecast of that window, not the list.
      if (pick.keep.window && Object.hasOwn(FORECAST_WINDOWS, pick.keep.window)) {
        return showForecast(ctx, pick.keep.window as ForecastWindow, null, pick.id);
      }
      return showSchedules(ctx, { runbookId: pick.id });
    case 'health':
      return showHealth(ctx, { id: pick.id });
    case 'executions': {
      // A pick value is not sealed: a hidden runbook's id must not turn into its name here.
      const runbook = await deps.catalog.get(pick.id);
      const visible = runbook !== null && (await visibleTo(ctx)).runbook(runbook);
      return showExecutions(ctx, {
        runbookQuery: visible ? runbook.name : pick.id,
        status: (['succeeded', 'failed', 'running'] as const).find((s) => s === pick.keep.status) ?? null,
        last: (['month', 'year'] as const).find((l) => l === pick.keep.last) ?? null,
        tokens: [],
      });
    }
  }
}
