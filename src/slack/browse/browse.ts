// `/runbook help`, `/runbook list` and `/runbook show`: answers in the conversation, ephemeral.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { cachedHealth, runbookHealth } from '../../runs/health.ts';
import { namedRunbookId, visibleTo } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildHelp } from '../kit/help-message.ts';
import type { SubcommandName } from '../kit/parse-command.ts';
import { loadRunbook } from '../kit/run-start.ts';
import { buildRunbookList, LIST_PAGE_SIZE, type ListState } from '../kit/runbook-list.ts';
import { buildRunbookDetails, type DetailsHealth } from './runbook-details.ts';

/** How long `show` waits for a runbook's health before answering without it. */
const SHOW_HEALTH_WAIT_MS = 4_000;

export async function showHelp(ctx: HandlerContext, topic: SubcommandName | null): Promise<void> {
  await ctx.respond(buildHelp(topic));
}

export async function showList(ctx: HandlerContext, state: ListState, replaceOriginal = false): Promise<void> {
  const visible = await visibleTo(ctx);
  const page = await ctx.deps.catalog.browse({
    visible: visible.runbook,
    words: state.w,
    scope: state.s,
    category: state.c,
    page: state.p,
    pageSize: LIST_PAGE_SIZE,
  });
  // Badges come from the health cache only: a list page never reads executions.
  const byName = new Map(
    page.items.flatMap((r) => {
      const cached = cachedHealth(ctx.deps, r.name);
      return cached ? [[r.name.trim().toLowerCase(), cached] as const] : [];
    }),
  );
  const health = { byName, nowMs: ctx.deps.now() };
  await ctx.respond({
    ...buildRunbookList(page, { ...state, c: page.category, p: page.page }, health),
    replaceOriginal,
  });
}

export async function showRunbook(ctx: HandlerContext, query: { text?: string; id?: string }): Promise<void> {
  const visible = await visibleTo(ctx);
  const id = await namedRunbookId(ctx, visible, query, 'show', 'show');
  if (id === null) return;
  // Judged before anything is loaded, and again on what was loaded (the catalog may not know it yet).
  const before = await visible.check({ id }, 'show');
  const runbook = before.allowed ? await loadRunbook(ctx.deps, id) : null;
  const decision = runbook ? await visible.check({ id: runbook.id, name: runbook.name }, 'show') : before;
  if (!runbook || !decision.allowed) {
    await ctx.respond(errorMessage(decision.allowed ? 'That runbook could not be loaded.' : decision.message));
    return;
  }
  // Health is read within its bound (or from the cache) and waited for a few seconds; when the API cannot
  // say in time, the details still show, saying so.
  const health: DetailsHealth = await runbookHealth(ctx.deps, runbook.name, { waitMs: SHOW_HEALTH_WAIT_MS }).then(
    (h) =>
      h
        ? { health: h, nowMs: ctx.deps.now() }
        : { unavailable: `Its health is still being read: \`/runbook health\` shows it in a moment.` },
    (err: unknown) => ({ unavailable: `Its health could not be read. ${describeFailure(err)}` }),
  );
  await ctx.respond(buildRunbookDetails(runbook, parseInputSchema(runbook.inputSchema), health));
}
