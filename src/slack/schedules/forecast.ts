// `/runbook schedules --next 24h|7d`: every run due in the window across the schedules the person may
// view. A paused schedule does not run; a skip runs again after its timer. Real expressions come from the
// store for paused ones (the API holds a never-firing placeholder).
import { FORECAST_WINDOWS, type ForecastWindow, forecastRuns } from '../../schedules/forecast.ts';
import { visibleTo } from '../kit/access.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildForecast } from './forecast-list.ts';
import { userTimeZone } from './schedules.ts';

/** Schedules read at most (the forecast says when it was cut). */
const MAX_SCHEDULES = 1_000;

export async function showForecast(ctx: HandlerContext, window: ForecastWindow): Promise<void> {
  const { deps } = ctx;
  const visible = await visibleTo(ctx);
  const pauses = new Map(
    (await deps.access.store.schedulePauses.list(MAX_SCHEDULES)).map((p) => [p.scheduleId, p] as const),
  );
  const schedules = [];
  let pausedCount = 0;
  for await (const s of deps.api.schedules.iterate({ pageSize: 100 })) {
    if (!visible.ref({ id: s.runbookId, name: s.runbookName })) continue;
    const pause = pauses.get(s.id);
    if (pause && pause.resumeAt === null) {
      pausedCount += 1;
      continue;
    }
    schedules.push({ id: s.id, runbookId: s.runbookId, runbookName: s.runbookName, cron: pause?.cron ?? s.schedule });
    if (schedules.length >= MAX_SCHEDULES) break;
  }
  const now = deps.now();
  const forecast = forecastRuns(schedules, now, FORECAST_WINDOWS[window]);
  // A skipped schedule's runs before its timer do not happen.
  const runs = forecast.runs.filter((r) => {
    const resumeAt = pauses.get(r.scheduleId)?.resumeAt;
    return resumeAt === null || resumeAt === undefined || r.at > resumeAt;
  });
  await ctx.respond(
    buildForecast({
      window,
      runs,
      truncated: forecast.truncated,
      timeZone: await userTimeZone(ctx.client, ctx.userId, now),
      pausedCount,
      unreadableCount: forecast.unreadable.length,
    }),
  );
}
