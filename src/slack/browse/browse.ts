// `/runbook help`, `/runbook list` and `/runbook show`: answers in the conversation, ephemeral.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { visibleTo } from '../kit/access.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { buildHelp } from '../kit/help-message.ts';
import type { SubcommandName } from '../kit/parse-command.ts';
import { loadRunbook } from '../kit/run-start.ts';
import { buildRunbookChoice } from '../kit/runbook-choice.ts';
import { buildRunbookList, LIST_PAGE_SIZE, type ListState } from '../kit/runbook-list.ts';
import { buildRunbookDetails } from './runbook-details.ts';

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
  await ctx.respond({ ...buildRunbookList(page, { ...state, c: page.category, p: page.page }), replaceOriginal });
}

export async function showRunbook(ctx: HandlerContext, query: { text?: string; id?: string }): Promise<void> {
  const visible = await visibleTo(ctx);
  let id = query.id ?? null;
  if (!id) {
    const resolution = await visible.resolve(query.text ?? '', 'runbook.show');
    if (resolution.kind !== 'match') {
      await ctx.respond(buildRunbookChoice(query.text ?? '', resolution, 'show'));
      return;
    }
    id = resolution.runbook.id;
  }
  // Judged before anything is loaded, and again on what was loaded (the catalog may not know it yet).
  const before = await visible.check({ id }, 'runbook.show');
  const runbook = before.allowed ? await loadRunbook(ctx.deps, id) : null;
  const decision = runbook ? await visible.check({ id: runbook.id, name: runbook.name }, 'runbook.show') : before;
  if (!runbook || !decision.allowed) {
    await ctx.respond(errorMessage(decision.allowed ? 'That runbook could not be loaded.' : decision.message));
    return;
  }
  await ctx.respond(buildRunbookDetails(runbook, parseInputSchema(runbook.inputSchema)));
}
