// `/runbook schedules --next 24h|7d`: every run due in the window across the schedules the person may
// view (`src/runs/forecast.ts` decides which and when), shown in the person's time zone.

import { forecastFor } from '../../runs/forecast.ts';
import type { ForecastWindow } from '../../schedules/forecast.ts';
import { visibleTo } from '../kit/access.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildForecast } from './forecast-list.ts';
import { userTimeZone } from './schedules.ts';

export async function showForecast(ctx: HandlerContext, window: ForecastWindow): Promise<void> {
  const { deps } = ctx;
  const forecast = await forecastFor(deps, await visibleTo(ctx), window);
  await ctx.respond(
    buildForecast({ window, ...forecast, timeZone: await userTimeZone(ctx.client, ctx.userId, deps.now()) }),
  );
}
