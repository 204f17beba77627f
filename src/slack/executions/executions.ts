// `/runbook executions` and `/runbook status`, plus the two modals their buttons open: the full
// output of an execution, and the run form pre-filled with an execution's inputs (Re-run).
import type { WebClient } from '@slack/web-api';
import { NotFoundError } from '../../api/errors.ts';
import { filterHintsFor, listMatching, SCAN_PAGE_SIZE, workflowNameTerm } from '../../api/filter-hint.ts';
import type { ExecutionPage, ListExecutionsParams } from '../../api/runbook-api.ts';
import type { Execution } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import { SECRET_KEY } from '../../runs/execution-facts.ts';
import { looksLikeFullId } from '../../runs/execution-ref.ts';
import { labelExecutionInputs } from '../../runs/execution-secrets.ts';
import { type Look, runbookNamed } from '../../runs/visibility.ts';
import { visibleTo } from '../kit/access.ts';
import { errorModal, infoModal, loadingModal } from '../kit/common.ts';
import type { SlackDeps } from '../kit/deps.ts';
import { describeFailure } from '../kit/describe-failure.ts';
import { executionIdFor } from '../kit/execution-ref.ts';
import { buildExecutionNotFound, buildExecutionStatus, parseExecutionInputs } from '../kit/execution-status.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { runModalView } from '../kit/run-start.ts';
import { buildChoiceBlocks, buildRunbookChoice } from '../kit/runbook-choice.ts';
import { UserFacingError } from '../kit/user-facing-error.ts';
import {
  buildExecutionList,
  EXECUTIONS_PAGE_SIZE,
  type ExecutionStatusFilter,
  type ExecutionsQuery,
} from './execution-list.ts';
import { buildOutputPage } from './output-pages.ts';

export type { ExecutionsQuery } from './execution-list.ts';

const STATUS_FILTER: Record<ExecutionStatusFilter, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  running: 'in_progress',
};

const STATUS_OF_FILTER: Record<ExecutionStatusFilter, string> = {
  succeeded: 'EXECUTION_STATUS_SUCCEEDED',
  failed: 'EXECUTION_STATUS_FAILED',
  running: 'EXECUTION_STATUS_IN_PROGRESS',
};

/**
 * The list filter, a hint only (src/api/filter-hint.ts): `workflowName:<name>` (executions carry
 * only the runbook's name) and `status:<value>`. Rows are re-checked whatever the server did.
 */
export function executionsFilter(runbookName: string | null, status: ExecutionStatusFilter | null): string {
  const terms: string[] = [];
  if (runbookName) {
    const term = workflowNameTerm(runbookName);
    if (term) terms.push(term);
  }
  if (status) terms.push(`status:${STATUS_FILTER[status]}`);
  return terms.join(' ');
}

/** Pages `/runbook executions` reads at most for one page of the list (the first use's check included). */
export const EXECUTIONS_SCAN_PAGES = 5;

function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** How many of the latest executions "Only mine" reads at most, to find, count and page the person's own. */
export const OWN_RUNS_SCAN = 1000;
/** Requests for those (pages of 100), plus the first use's check of the filter. */
const OWN_RUNS_SCAN_PAGES = OWN_RUNS_SCAN / SCAN_PAGE_SIZE + 1;

/** One page of the person's own runs; its paging tokens are offsets into them ("10", "20", …). */
function pageOfOwn(
  own: Execution[],
  token: string | undefined,
): Pick<ExecutionPage, 'items' | 'nextPageToken' | 'pageCount' | 'statusTable'> {
  const offset = /^\d{1,6}$/.test(token ?? '') ? Number(token) : 0;
  const statusTable: Record<string, number> = {};
  for (const e of own) statusTable[e.executionStatus] = (statusTable[e.executionStatus] ?? 0) + 1;
  const end = offset + EXECUTIONS_PAGE_SIZE;
  return {
    items: own.slice(offset, end),
    nextPageToken: end < own.length ? String(end) : '',
    pageCount: Math.max(1, Math.ceil(own.length / EXECUTIONS_PAGE_SIZE)),
    statusTable,
  };
}

export async function showExecutions(
  ctx: HandlerContext,
  query: ExecutionsQuery,
  replaceOriginal = false,
): Promise<void> {
  let runbookName = query.runbookName ?? null;
  if (!runbookName && query.runbookQuery) {
    const resolution = await (await visibleTo(ctx)).resolve(query.runbookQuery, 'executions');
    if (resolution.kind !== 'match') {
      await ctx.respond({
        ...buildRunbookChoice(query.runbookQuery, resolution, 'executions', {
          ...(query.status ? { status: query.status } : {}),
          ...(query.last ? { last: query.last } : {}),
        }),
        replaceOriginal,
      });
      return;
    }
    runbookName = resolution.runbook.name;
  } else if (runbookName) {
    // A name carried by a button (paging, a filter) is judged again: `view` is decided where they act now.
    await assertVisible(ctx, runbookName, null, 'executions');
  }
  const base: ListExecutionsParams = {
    orderBy: 'descending',
    ...(query.last ? { timeRange: query.last === 'month' ? 'last_month' : 'last_year' } : {}),
  };
  const api = ctx.deps.api.executions;
  // The filter grammar is not published: the server may apply, ignore, misread or refuse it. The rows
  // are the ones that match, read from pages it did not narrow when it has to be (a bounded number).
  const request = {
    list: (page: Pick<ListExecutionsParams, 'filter' | 'pageSize' | 'pageToken'>) => api.list({ ...base, ...page }),
    filter: executionsFilter(runbookName, query.status),
    matches: (e: Execution) =>
      (!runbookName || sameName(e.workflowName, runbookName)) &&
      (!query.status || e.executionStatus === STATUS_OF_FILTER[query.status]),
    key: (e: Execution) => e.id,
    hints: filterHintsFor(api),
  };
  const visible = await visibleTo(ctx);
  let page: Pick<ExecutionPage, 'items' | 'nextPageToken' | 'pageCount' | 'statusTable'>;
  let scanCut = false;
  let scannedLatest = 0;
  let searched: number | null = null;
  if (query.mine) {
    // "Only mine": the API cannot filter by executor, so the person's runs (executor = their email, what a
    // run from Slack sends as userEmail) are gathered here and counted and paged here, not the server's.
    const email = ((await ctx.deps.access.identity.emailOf(ctx.client, ctx.userId)) ?? '').toLowerCase();
    const latest = await listMatching({ ...request, want: Number.POSITIVE_INFINITY, maxPages: OWN_RUNS_SCAN_PAGES });
    const own = latest.items.filter(
      (e) => email !== '' && e.executor.toLowerCase() === email && visible.ref({ name: e.workflowName }),
    );
    scanCut = latest.cut;
    scannedLatest = latest.rowsRead;
    page = pageOfOwn(own, query.tokens.at(-1));
  } else {
    const found = await listMatching({
      ...request,
      want: EXECUTIONS_PAGE_SIZE,
      cursor: query.tokens.at(-1) ?? '',
      maxPages: EXECUTIONS_SCAN_PAGES,
      narrowPageSize: EXECUTIONS_PAGE_SIZE,
    });
    // The server's counts describe the rows asked for only when it narrowed exactly (or nothing was asked).
    const exact = found.exactPage;
    page = {
      items: found.items.filter((e) => visible.ref({ name: e.workflowName })),
      nextPageToken: found.next,
      pageCount: exact ? Math.ceil(exact.totalCount / EXECUTIONS_PAGE_SIZE) : 0,
      statusTable: exact?.statusTable ?? {},
    };
    searched = found.cut ? found.rowsRead : null;
  }
  const items = page.items;
  const message = buildExecutionList({
    page,
    searched,
    query,
    runbookName,
    ...(scanCut ? { scannedLatest } : {}),
    nowMs: ctx.deps.now(),
    people: await ctx.deps.access.identity.peopleByEmail(
      ctx.client,
      items.map((e) => e.executor),
    ),
  });
  await ctx.respond({ ...message, replaceOriginal });
}

export async function showStatus(ctx: HandlerContext, executionId: string, replaceOriginal = false): Promise<void> {
  // Buttons carry whole ids; people may type a unique prefix (the cards show short ids).
  const id = looksLikeFullId(executionId)
    ? executionId.trim()
    : await executionIdFor(ctx, executionId, 'status', replaceOriginal);
  if (id === null) return;
  let execution: Awaited<ReturnType<SlackDeps['api']['executions']['get']>>;
  try {
    execution = await ctx.deps.api.executions.get(id);
  } catch (err) {
    if (err instanceof NotFoundError) {
      await ctx.respond({ ...buildExecutionNotFound(id), replaceOriginal });
      return;
    }
    throw err;
  }
  const runbook = await runbookNamed(ctx.deps, execution.workflowName);
  await assertVisible(ctx, execution.workflowName, runbook?.id ?? null, 'status');
  const inputs = labelExecutionInputs(parseExecutionInputs(execution.inputs), runbook);
  const message = buildExecutionStatus({
    execution,
    inputs,
    runbookId: runbook?.id ?? null,
    nowMs: ctx.deps.now(),
    people: await ctx.deps.access.identity.peopleByEmail(ctx.client, [execution.executor, execution.approver ?? '']),
  });
  await ctx.respond({ ...message, replaceOriginal });
}

/** Opens a modal at once (the trigger lives 3 s), then fills it; failures end up in the modal. */
async function openFilledModal(
  ctx: HandlerContext,
  loading: ReturnType<typeof loadingModal>,
  title: string,
  fill: () => Promise<Parameters<WebClient['views']['update']>[0]['view']>,
): Promise<void> {
  if (!ctx.triggerId) throw new Error('opening a modal needs a trigger_id');
  const opened = await ctx.client.views.open({ trigger_id: ctx.triggerId, view: loading });
  const viewId = opened.view?.id;
  if (!viewId) return;
  let view: Parameters<WebClient['views']['update']>[0]['view'];
  try {
    view = await fill();
  } catch (err) {
    ctx.deps.logger.warn({ err }, `could not fill the ${title} modal`);
    view = errorModal(title, notFoundSentence(err) ?? describeFailure(err));
  }
  try {
    await ctx.client.views.update({ view_id: viewId, view });
  } catch (err) {
    // Never leave the person looking at "Loading…".
    ctx.deps.logger.warn({ err }, `could not show the ${title} modal`);
    await ctx.client.views.update({ view_id: viewId, view: errorModal(title, describeFailure(err)) }).catch(() => {});
  }
}

/** The policy's `view` rule for one execution's runbook; refuses (audited as the look) with the rule's sentence. */
async function assertVisible(ctx: HandlerContext, name: string, id: string | null, look: Look): Promise<void> {
  const decision = await (await visibleTo(ctx)).check({ id, name }, look);
  if (!decision.allowed) throw new UserFacingError(decision.message);
}

function notFoundSentence(err: unknown): string | null {
  if (!(err instanceof NotFoundError) || !err.path.includes('/executions')) return null;
  return 'That execution no longer exists. Check the id in /runbook executions.';
}

/** An execution with its output, if the person may view its runbook (else a UserFacingError). */
export async function loadVisibleExecution(ctx: HandlerContext, executionId: string): Promise<Execution> {
  const execution = await ctx.deps.api.executions.get(executionId);
  await assertVisible(ctx, execution.workflowName, null, 'output');
  return execution;
}

/** The "Full output" button: a modal paging through the whole output, opened on its last page. */
export async function openOutputModal(ctx: HandlerContext, executionId: string): Promise<void> {
  await openFilledModal(ctx, loadingModal('Execution output', 'Loading the output…'), 'Execution output', async () =>
    buildOutputPage(await loadVisibleExecution(ctx, executionId)),
  );
}

export interface RerunTarget {
  executionId: string;
  /** Known runbook id (from the button); null → found by the execution's runbook name. */
  runbookId: string | null;
}

/** The "Re-run" button: the run form for the same runbook, pre-filled with the execution's inputs. */
export async function openRerunModal(ctx: HandlerContext, target: RerunTarget): Promise<void> {
  await openFilledModal(ctx, loadingModal('Run a runbook', 'Loading the runbook…'), 'Run a runbook', async () => {
    const execution = await ctx.deps.api.executions.get(target.executionId, { summary: true });
    const inputs = parseExecutionInputs(execution.inputs);
    // Values named like credentials are never carried into a new form (schema secrets are dropped by runModalView).
    const prefill =
      inputs.kind === 'object'
        ? Object.fromEntries(Object.entries(inputs.values).filter(([key]) => !SECRET_KEY.test(key)))
        : undefined;
    let runbookId = target.runbookId;
    if (!runbookId) {
      const runbook = await runbookNamed(ctx.deps, execution.workflowName);
      if (!runbook) {
        const resolution = await closestRunbooks(ctx, execution.workflowName);
        return infoModal('Run a runbook', ' ', buildChoiceBlocks(execution.workflowName || '?', resolution, 'run'));
      }
      runbookId = runbook.id;
    }
    return runModalView(
      ctx.deps,
      { runbookId, channel: ctx.channelId, via: 'rerun', ...(prefill ? { prefill } : {}) },
      ctx.channelId,
      'run',
      { userId: ctx.userId, client: ctx.client, teamId: ctx.teamId, enterpriseId: ctx.enterpriseId ?? null },
    );
  });
}

/** When the execution's runbook is not in the catalog by that exact name: the nearest names to pick from. */
async function closestRunbooks(ctx: HandlerContext, name: string): Promise<Exclude<Resolution, { kind: 'match' }>> {
  const resolution = name ? await (await visibleTo(ctx)).resolve(name) : { kind: 'none' as const, suggestions: [] };
  if (resolution.kind === 'match') return { kind: 'none', suggestions: [resolution.runbook] };
  return resolution;
}
