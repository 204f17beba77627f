// `/runbook health [runbook] [--here]`: one runbook's health (judged `view` like show, refusal audited as
// `runbook.health`), or without a runbook the ones failing most among those the person may view. One
// runbook's health comes with a chart (health-chart.ts): the numbers answer privately at once and the
// chart follows in the person's DM with the bot; with --here numbers and chart are posted in the channel.
import { failingRunbooks, runbookHealth } from '../../runs/health.ts';
import { namedRunbookId, visibleTo } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { postHealthChart } from './health-chart.ts';
import { buildFailingRunbooks, buildRunbookHealth, CHART_TO_DM, withNote } from './health-view.ts';

export async function showHealth(
  ctx: HandlerContext,
  query: { text?: string | null; id?: string; here?: boolean },
): Promise<void> {
  const { deps } = ctx;
  const visible = await visibleTo(ctx);
  if (!query.id && !query.text?.trim()) {
    const failing = await failingRunbooks(deps, (name) => visible.ref({ name }));
    const ids = new Map((await deps.catalog.all()).map((r) => [r.name.trim().toLowerCase(), r.id] as const));
    await ctx.respond(buildFailingRunbooks(failing, ids, deps.now()));
    return;
  }
  const id = await namedRunbookId(ctx, visible, query, 'health', 'health');
  if (id === null) return;
  // A picked id is not sealed: judged again, by id and by the name it has.
  const runbook = await deps.catalog.get(id);
  const decision = await visible.check({ id, name: runbook?.name ?? null }, 'health');
  if (!decision.allowed || !runbook) {
    await ctx.respond(errorMessage(decision.allowed ? 'That runbook could not be found.' : decision.message));
    return;
  }
  const { report, fetchedAt } = await runbookHealth(deps, runbook.name);
  const numbers = buildRunbookHealth(runbook, report, fetchedAt, deps.now());
  // No runs: nothing to draw.
  if (report.runs === 0) {
    await ctx.respond(numbers);
    return;
  }
  if (query.here && ctx.channelId) {
    const inChannel = await postHealthChart(ctx, runbook, report, numbers, 'here');
    if (inChannel.kind === 'posted') return;
    // Not in the channel: the person still gets it all, privately.
    await ctx.respond(withNote(numbers, `${inChannel.sentence} The chart comes to your DM with me instead.`));
  } else {
    await ctx.respond(withNote(numbers, CHART_TO_DM));
  }
  const inDm = await postHealthChart(ctx, runbook, report, numbers, 'dm');
  if (inDm.kind === 'failed') await ctx.respond(errorMessage(inDm.sentence));
}
