// `/runbook schedules --next 24h|7d`: every run due in the window across the schedules the person may
// view (`src/runs/forecast.ts` decides which and when), shown in the person's time zone.

import { forecastFor } from '../../runs/forecast.ts';
import type { ForecastWindow } from '../../schedules/forecast.ts';
import { visibleTo } from '../kit/access.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildRunbookChoice } from '../kit/runbook-choice.ts';
import { buildForecast } from './forecast-list.ts';
import { userTimeZone } from './schedules.ts';

/**
 * The forecast; with `query` (`/runbook schedules <runbook> --next`), that runbook's runs only; with
 * `runbookId` (a pick from the list an ambiguous name gave, which keeps the window), that one's.
 */
export async function showForecast(
  ctx: HandlerContext,
  window: ForecastWindow,
  query?: string | null,
  runbookId?: string,
): Promise<void> {
  const { deps } = ctx;
  const visible = await visibleTo(ctx);
  let runbook: { id: string; name: string } | null = null;
  if (runbookId) {
    const known = await deps.catalog.get(runbookId).catch(() => null);
    // A button's runbook id is not sealed: a hidden runbook's name is not shown for it.
    runbook = { id: runbookId, name: known && visible.runbook(known) ? known.name : runbookId };
  } else if (query?.trim()) {
    const resolution = await visible.resolve(query);
    if (resolution.kind !== 'match') {
      await ctx.respond(buildRunbookChoice(query, resolution, 'schedules', { window }));
      return;
    }
    runbook = { id: resolution.runbook.id, name: resolution.runbook.name };
  }
  const forecast = await forecastFor(deps, visible, window, runbook?.id ?? null);
  const timeZone = await userTimeZone(ctx.client, ctx.userId, deps.now());
  await ctx.respond(buildForecast({ window, ...forecast, timeZone, runbookName: runbook?.name ?? null }));
}
