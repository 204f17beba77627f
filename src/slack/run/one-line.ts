// One-line runs — `/runbook run <runbook> key=value … [--now]` and `/runbook <alias> …` — onto the
// run use case. Without --now: the run form, prefilled, with refused values shown above it and the
// channel's defaults preselected. With --now: every value must validate and no approval may be
// needed; then a short confirmation (Run / Edit / Cancel). Run goes through runWithoutApproval, the
// same gate as every run. A name that matches several runbooks (or none) gives the pick list the form
// path gives; the line waits in a draft (no secrets) and the pick carries on with --now.
import type { KnownBlock } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { Resolution } from '../../catalog/runbook-catalog.ts';
import { parseInputSchema } from '../../forms/input-schema.ts';
import { labelInputs } from '../../forms/labelled-inputs.ts';
import { secretFieldNames } from '../../forms/secrets.ts';
import { zoneName } from '../../forms/time-zone.ts';
import { describeFieldErrors, wallTimeNames } from '../../forms/typed-values.ts';
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
import { escapeMrkdwn, mrkdwnText } from '../kit/mrkdwn.ts';
import { channelRunChoice, openRunModal } from '../kit/run-start.ts';
import { buildChoiceBlocks, buildRunbookChoice, offeredRunbooks, offeredSecrets } from '../kit/runbook-choice.ts';
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
  /** The thread of the line (a mention's), when the run continues from a later click. */
  threadTs?: string | null;
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
    threadTs: run.threadTs ?? ctx.threadTs ?? null,
  });
  await confirmNow(ctx, run, proxyId, destination, savedBy);
}

/**
 * A runbook picked from the pick list of a `--now` line: the line carries on as typed (the confirmation,
 * not the form). Only whoever typed it may pick; a draft gone (an hour) says so.
 */
export async function continueLineRun(ctx: HandlerContext, runbookId: string, draftId: string): Promise<void> {
  const line = await ctx.deps.drafts.takeLine(draftId, ctx.userId);
  if (!line) {
    await ctx.respond(errorMessage('Nothing ran. This pick list has expired; type the line again.'));
    return;
  }
  await startLineRun(ctx, { runbookId, ...line, now: true });
}

type Resolved = Workflow | string | { pick: Exclude<Resolution, { kind: 'match' }> };

async function resolveFor(ctx: HandlerContext, actor: Actor, run: LineRun, via: RunEntry): Promise<Resolved> {
  if (run.runbookId) return loadRunbook(ctx.deps, run.runbookId);
  // A runbook hidden from the person reads as unknown, but the refusal is audited, as every run's is.
  const visible = await visibilityFor(ctx.deps, actor);
  const resolution = await visible.resolve(run.query ?? '', { action: RUN_OPEN_AUDIT_ACTION, via });
  if (resolution.kind === 'match') return loadRunbook(ctx.deps, resolution.runbook.id);
  return { pick: resolution };
}

/** A blank `key=` is not given, a secret's as any other's (typed-values.ts). */
const given = (values: Readonly<Record<string, string>>, name: string) => (values[name] ?? '').trim() !== '';

/** Secrets typed with --now; a mention (no trigger_id) stays in the conversation's history, as its form prompt says. */
function secretsRefusal(ctx: HandlerContext, secrets: readonly string[]): string {
  const them = secrets.length === 1 ? 'it' : 'them';
  const kept = ctx.triggerId ? '' : ` Your message keeps ${them} in this conversation's history: rotate ${them}.`;
  return `Secret values (${secrets.join(', ')}) are never typed on a line; drop --now and use the form.${kept}`;
}

/** The pick list of the form path, each choice carrying on this `--now` line (kept in a draft). */
async function pickForLine(
  ctx: HandlerContext,
  run: LineRun,
  resolution: Exclude<Resolution, { kind: 'match' }>,
): Promise<string | null> {
  // A secret is never kept, not even waiting for the pick: a value named as any offered runbook's secret is refused now.
  const secrets = offeredSecrets(resolution, run.values).filter((name) => given(run.values, name));
  if (secrets.length > 0) return secretsRefusal(ctx, secrets);
  const draftId =
    offeredRunbooks(resolution).length > 0
      ? await ctx.deps.drafts.saveLine(
          {
            values: run.values,
            proxyId: run.proxyId ?? null,
            destination: run.destination ?? null,
            threadTs: run.threadTs ?? ctx.threadTs ?? null,
          },
          ctx.userId,
        )
      : null;
  const keep = draftId ? { line: draftId } : {};
  if (resolution.kind === 'several') {
    await ctx.respond(buildRunbookChoice(run.query ?? '', resolution, 'run', keep));
    return null;
  }
  // None: refused as before, with the form path's closest names to pick from.
  const refusal = errorMessage(`Nothing ran. No runbook "${run.query}" that you may see; try /runbook list.`);
  const closest = buildChoiceBlocks(run.query ?? '', resolution, 'run', keep).slice(1);
  const header: KnownBlock = { type: 'section', text: mrkdwnText('Did you mean one of these?') };
  await ctx.respond({ ...refusal, blocks: [...refusal.blocks, ...(closest.length > 0 ? [header, ...closest] : [])] });
  return null;
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
  if ('pick' in runbook) {
    const refusal = await pickForLine(ctx, run, runbook.pick);
    return refusal === null ? undefined : refuse(refusal);
  }
  const check = await checkRunWithoutApproval(deps, actor, runbook, via, 'with --now');
  if (check.kind === 'refused') return refuse(check.sentence);
  if (!isRunnable(runbook)) return refuse(`${runbook.name} cannot be run: ${disabledReason(runbook)}.`);
  const spec = parseInputSchema(runbook.inputSchema);
  const secrets = secretFieldNames(spec).filter((name) => given(run.values, name));
  if (secrets.length > 0) return refuse(secretsRefusal(ctx, secrets));
  const typed = typedRunParams(spec, run.values, actor.timeZone ?? null);
  if (!typed.ok) {
    return refuse(
      `These values are not valid: ${describeFieldErrors(typed.errors)}. Fix them, or drop --now to use the form.`,
    );
  }
  const zoneNote = await zoneNoteFor(ctx, wallTimeNames(spec, run.values));
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
    ...((run.threadTs ?? ctx.threadTs) ? { t: run.threadTs ?? ctx.threadTs } : {}),
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
      zoneNote,
      value,
    }),
  );
}

/** Which zone the date-times typed without an offset were read in, as the form names it under its pickers. */
async function zoneNoteFor(ctx: HandlerContext, names: string[]): Promise<string | null> {
  if (names.length === 0) return null;
  const zone = await ctx.deps.access.identity.timeZoneOf(ctx.client, ctx.userId);
  const where = zone
    ? `your Slack time zone, ${escapeMrkdwn(zoneName(zone))}`
    : 'UTC (Slack does not say your time zone)';
  const inputs = names.map((n) => `\`${escapeMrkdwn(n)}\``).join(', ');
  return `${inputs} read in ${where}; add an offset (\`+01:00\`, \`Z\`) for another zone.`;
}
