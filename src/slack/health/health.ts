// `/runbook health [runbook]`: one runbook's health (judged `view` like show, refusal audited as
// `runbook.health`), or without a runbook the ones failing most among those the person may view.
import { failingRunbooks, runbookHealth } from '../../runs/health.ts';
import { namedRunbookId, visibleTo } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildFailingRunbooks, buildRunbookHealth } from './health-view.ts';

export async function showHealth(ctx: HandlerContext, query: { text?: string | null; id?: string }): Promise<void> {
  const { deps } = ctx;
  const visible = await visibleTo(ctx);
  if (!query.id && !query.text?.trim()) {
    const failing = await failingRunbooks(deps, (name) => visible.ref({ name }));
    const ids = new Map((await deps.catalog.all()).map((r) => [r.name.trim().toLowerCase(), r.id] as const));
    await ctx.respond(buildFailingRunbooks(failing, ids, deps.now()));
    return;
  }
  const id = await namedRunbookId(ctx, visible, query, 'runbook.health', 'health');
  if (id === null) return;
  // A picked id is not sealed: judged again, by id and by the name it has.
  const runbook = await deps.catalog.get(id);
  const decision = await visible.check({ id, name: runbook?.name ?? null }, 'runbook.health');
  if (!decision.allowed || !runbook) {
    await ctx.respond(errorMessage(decision.allowed ? 'That runbook could not be found.' : decision.message));
    return;
  }
  const { report, fetchedAt } = await runbookHealth(deps, runbook.name);
  await ctx.respond(buildRunbookHealth(runbook, report, fetchedAt, deps.now()));
}
