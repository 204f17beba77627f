// One-line runs — `/runbook run <runbook> key=value … [--now]` and `/runbook <alias> …` — onto the
// run use case. Without --now: the run form, prefilled, with refused values shown above it and the
// channel's defaults preselected. With --now: every value must validate and no approval may be
// needed; then a short confirmation (Run / Edit / Cancel). Run goes through runWithoutApproval, the
// same gate as every run.
import type { Workflow } from '../../api/schemas.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { labelInputs } from '../../forms/labelled-inputs.ts';
import { secretFieldNames } from '../../forms/secrets.ts';
import { describeFieldErrors } from '../../forms/typed-values.ts';
import type { Actor } from '../../runs/actor.ts';
import { loadRunbook, RUN_OPEN_AUDIT_ACTION } from '../../runs/run.ts';
import { chooseRun, proxyRefusal } from '../../runs/run-choice.ts';
import { checkRunWithoutApproval } from '../../runs/run-direct.ts';
import type { RunEntry } from '../../runs/run-entry.ts';
import { typedRunParams } from '../../runs/run-params.ts';
import { disabledReason, isRunnable } from '../../runs/runnable.ts';
import { visibilityFor } from '../../runs/visibility.ts';
import { actorFor, type SavedBy } from '../kit/actor.ts';
import { errorMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { channelRunChoice, openRunModal } from '../kit/run-start.ts';
import { buildRunConfirmation } from './run-confirmation.ts';

export interface LineRun {
  /** A runbook typed by the person, or a known id (an alias). */
  query?: string | null;
  runbookId?: string | null;
  values: Record<string, string>;
  now: boolean;
  proxyId?: string | null;
  destination?: string | null;
  /** Who saved `destination` (an alias's --to): judged against them. */
  savedBy?: SavedBy | null;
  alias?: string | null;
}

export async function startLineRun(ctx: HandlerContext, run: LineRun): Promise<void> {
  if (!run.now) {
    // The form applies the channel's defaults itself (runModalView), as for every other way in.
    await openRunModal(ctx, {
      query: run.query ?? null,
      runbookId: run.runbookId ?? null,
      typed: run.values,
      proxyId: run.proxyId ?? null,
      destination: run.destination ?? null,
      destinationSavedBy: run.savedBy ?? null,
      threadTs: ctx.threadTs ?? null,
    });
    return;
  }
  const { proxyId, destination, savedBy } = await channelRunChoice(ctx.deps, ctx.channelId, {
    proxyId: run.proxyId ?? null,
    destination: run.destination ?? null,
    destinationSavedBy: run.savedBy ?? null,
    threadTs: ctx.threadTs ?? null,
  });
  await confirmNow(ctx, run, proxyId, destination, savedBy);
}

async function resolveFor(ctx: HandlerContext, actor: Actor, run: LineRun, via: RunEntry): Promise<Workflow | string> {
  if (run.runbookId) return loadRunbook(ctx.deps, run.runbookId);
  // A runbook hidden from the person reads as unknown, but the refusal is audited, as every run's is.
  const visible = await visibilityFor(ctx.deps, actor);
  const resolution = await visible.resolve(run.query ?? '', { action: RUN_OPEN_AUDIT_ACTION, via });
  if (resolution.kind === 'match') return loadRunbook(ctx.deps, resolution.runbook.id);
  if (resolution.kind === 'several') {
    const names = resolution.candidates.slice(0, 5).map((r) => r.name);
    return `Several runbooks match "${run.query}" (${names.join(', ')}); give the full name or the id.`;
  }
  return `No runbook "${run.query}" that you may see; try /runbook list.`;
}

async function confirmNow(
  ctx: HandlerContext,
  run: LineRun,
  proxy: string | null,
  destination: string | null,
  savedBy: SavedBy | null,
): Promise<void> {
  const { deps } = ctx;
  const refuse = (sentence: string) => ctx.respond(errorMessage(`Nothing ran. ${sentence}`));
  const actor = await actorFor(deps, ctx.client, {
    userId: ctx.userId,
    teamId: ctx.teamId,
    channelId: ctx.channelId,
    destinationChannel: destination ?? ctx.channelId,
    savedBy,
  });
  // `v`: the entry point, named in the run's audit record (and in a refusal's, here already).
  const via = run.alias ? 'alias' : 'one-line';
  const runbook = await resolveFor(ctx, actor, run, via);
  if (typeof runbook === 'string') return refuse(runbook);
  const check = await checkRunWithoutApproval(deps, actor, runbook, via, 'with --now');
  if (check.kind === 'refused') return refuse(check.sentence);
  if (!isRunnable(runbook)) return refuse(`${runbook.name} cannot be run: ${disabledReason(runbook)}.`);
  const spec = parseInputSchema(runbook.inputSchema);
  const secrets = secretFieldNames(spec).filter((name) => Object.hasOwn(run.values, name));
  if (secrets.length > 0) {
    return refuse(`Secret values (${secrets.join(', ')}) are never typed on a line; drop --now and use the form.`);
  }
  const typed = typedRunParams(spec, run.values);
  if (!typed.ok) {
    return refuse(
      `These values are not valid: ${describeFieldErrors(typed.errors)}. Fix them, or drop --now to use the form.`,
    );
  }
  const { proxyId } = await chooseRun(deps, runbook, ctx.channelId, { proxyId: proxy });
  const badProxy = await proxyRefusal(deps, runbook, proxyId);
  if (badProxy !== null || !proxyId) return refuse(badProxy ?? '');
  const draftId = await deps.drafts.save(
    {
      runbookId: runbook.id,
      proxyId,
      channel: destination,
      params: typed.params,
    },
    spec,
  );
  // `s`: the destination was saved (in alias s, or '' the channel defaults); the click reads who saved it from the store.
  const value = JSON.stringify({
    d: draftId,
    v: via,
    ...(ctx.threadTs ? { t: ctx.threadTs } : {}),
    ...(savedBy ? { s: savedBy.alias ?? '' } : {}),
  });
  await ctx.respond(
    buildRunConfirmation({
      runbookName: runbook.name,
      inputs: labelInputs(spec, typed.params),
      proxyId,
      proxyName: deps.proxies.nameOf(proxyId),
      destination,
      alias: run.alias ?? null,
      value,
    }),
  );
}
