// `/runbook help`, `/runbook list` and `/runbook show`: answers in the conversation, ephemeral.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { errorMessage } from '../blocks/common.ts';
import { buildHelp } from '../blocks/help-message.ts';
import { buildRunbookChoice } from '../blocks/runbook-choice.ts';
import { buildRunbookDetails } from '../blocks/runbook-details.ts';
import { buildRunbookList, LIST_PAGE_SIZE, type ListState } from '../blocks/runbook-list.ts';
import { runbookFacts, subjectOf } from './access.ts';
import type { HandlerContext } from './context.ts';
import type { SubcommandName } from './parse-command.ts';
import { loadRunbook } from './run.ts';

export async function showHelp(ctx: HandlerContext, topic: SubcommandName | null): Promise<void> {
  await ctx.respond(buildHelp(topic));
}

export async function showList(ctx: HandlerContext, state: ListState, replaceOriginal = false): Promise<void> {
  const subject = await subjectOf(ctx.deps, ctx.client, ctx.userId, ctx.channelId);
  const page = await ctx.deps.catalog.browse({
    visible: (runbook) => ctx.deps.access.policy.decide('view', subject, runbookFacts(ctx.deps, runbook)).allowed,
    words: state.w,
    scope: state.s,
    category: state.c,
    page: state.p,
    pageSize: LIST_PAGE_SIZE,
  });
  await ctx.respond({ ...buildRunbookList(page, { ...state, c: page.category, p: page.page }), replaceOriginal });
}

export async function showRunbook(ctx: HandlerContext, query: { text?: string; id?: string }): Promise<void> {
  let id = query.id ?? null;
  if (!id) {
    const resolution = await ctx.deps.catalog.resolve(query.text ?? '');
    if (resolution.kind !== 'match') {
      await ctx.respond(buildRunbookChoice(query.text ?? '', resolution, 'show'));
      return;
    }
    id = resolution.runbook.id;
  }
  const runbook = await loadRunbook(ctx.deps, id);
  const subject = await subjectOf(ctx.deps, ctx.client, ctx.userId, ctx.channelId);
  const decision = ctx.deps.access.policy.decide('view', subject, runbookFacts(ctx.deps, runbook));
  if (!decision.allowed) {
    await ctx.respond(errorMessage(decision.message));
    return;
  }
  await ctx.respond(buildRunbookDetails(runbook, parseInputSchema(runbook.inputSchema)));
}
