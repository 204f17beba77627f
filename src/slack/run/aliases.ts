// `/runbook alias add|list|remove`, `/runbook <alias> …` and `/runbook defaults …`: parse, call the
// use case in src/runs/aliases.ts, answer with a builder. Using an alias is a one-line run.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { secretFieldNames } from '../../forms/secrets.ts';
import { describeFieldErrors, typeValues } from '../../forms/typed-values.ts';
import type { Actor } from '../../runs/actor.ts';
import {
  addAlias,
  aliasFor,
  aliasValues,
  changeChannelDefaults,
  listAliases,
  removeAlias,
} from '../../runs/aliases.ts';
import { judgeDestination, SAVED_DEFAULTS, savedAlias } from '../../runs/destinations.ts';
import { loadRunbook } from '../../runs/run.ts';
import { visibilityFor } from '../../runs/visibility.ts';
import { installationKey } from '../../tenants/tenant-scope.ts';
import { actorFor } from '../kit/actor.ts';
import { errorMessage, noticeMessage } from '../kit/common.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { escapeMrkdwn } from '../kit/mrkdwn.ts';
import type { AliasUse, ParsedCommand } from '../kit/parse-command.ts';
import { buildAliasList, buildChannelDefaults } from './alias-list.ts';
import { channelNames } from './channel-names.ts';
import { startLineRun } from './one-line.ts';

function actorHere(ctx: HandlerContext): Promise<Actor> {
  return actorFor(ctx.deps, ctx.client, { userId: ctx.userId, teamId: ctx.teamId, channelId: ctx.channelId });
}

/** The person saving `to` for the channel (null: nothing to save), with what Slack says about it for the gate. */
function actorSaving(ctx: HandlerContext, to: string | null): Promise<Actor> {
  const who = { userId: ctx.userId, teamId: ctx.teamId, channelId: ctx.channelId, destinationChannel: to };
  return actorFor(ctx.deps, ctx.client, who, { checkDestination: to !== null });
}

/**
 * `--to` as the store wants it: a `#name` becomes its channel id; ids and 'none' pass through.
 * Null after answering with the reason when the name is no channel the bot can see.
 */
async function resolveTo(ctx: HandlerContext, to: string | null): Promise<{ to: string | null } | null> {
  if (!to?.startsWith('#')) return { to };
  const found = await channelNames.resolve(ctx.client, ctx.teamId, to);
  if (found.ok) return { to: found.id };
  await ctx.respond(errorMessage(`Not saved: ${found.error}`));
  return null;
}

export async function addAliasCommand(
  ctx: HandlerContext,
  command: Extract<ParsedCommand, { kind: 'alias-add' }>,
): Promise<void> {
  const { deps } = ctx;
  const target = await resolveTo(ctx, command.to);
  if (!target) return;
  const actor = await actorSaving(ctx, target.to);
  const resolution = await (await visibilityFor(deps, actor)).resolve(command.runbook);
  if (resolution.kind !== 'match') {
    await ctx.respond(
      errorMessage(`No single runbook "${command.runbook}" that you may see; give its full name or id.`),
    );
    return;
  }
  const runbook = await loadRunbook(deps, resolution.runbook.id);
  const spec = parseInputSchema(runbook.inputSchema);
  const secrets = secretFieldNames(spec).filter((name) => Object.hasOwn(command.values, name));
  if (secrets.length > 0) {
    await ctx.respond(errorMessage(`Secret values (${secrets.join(', ')}) are never saved; leave them for the form.`));
    return;
  }
  // Values left out are asked for when the alias is used; only what was given must be valid.
  const typed = typeValues(spec, command.values);
  const given = typed.ok ? [] : typed.errors.filter((e) => Object.hasOwn(command.values, e.name));
  if (given.length > 0) {
    await ctx.respond(errorMessage(`Not saved: ${describeFieldErrors(given)}.`));
    return;
  }
  const outcome = await addAlias(deps, actor, {
    name: command.alias,
    runbook,
    values: command.values,
    proxyId: command.proxy,
    resultChannel: target.to,
    replace: command.replace ?? false,
  });
  if (outcome.kind === 'refused') {
    await ctx.respond(errorMessage(outcome.sentence));
    return;
  }
  const name = escapeMrkdwn(command.alias);
  await ctx.respond(
    noticeMessage(
      `:floppy_disk: Alias \`${name}\` ${outcome.value === 'updated' ? 'replaced' : 'added'} in this channel: *${escapeMrkdwn(runbook.name)}*. Use it with \`/runbook ${name} [key=value …] [--now]\`.`,
      `Alias ${command.alias} saved`,
    ),
  );
}

export async function listAliasesCommand(ctx: HandlerContext): Promise<void> {
  const aliases = await listAliases(ctx.deps, await actorHere(ctx));
  const broken = new Map<string, string>();
  for (const a of aliases) {
    const problem = await savedProblem(ctx, { resultChannel: a.resultChannel, by: a.createdBy, alias: a.name });
    if (problem) broken.set(a.name, problem);
  }
  await ctx.respond(buildAliasList(aliases, (id) => ctx.deps.proxies.nameOf(id), broken));
}

export async function removeAliasCommand(ctx: HandlerContext, name: string): Promise<void> {
  const outcome = await removeAlias(ctx.deps, await actorHere(ctx), name);
  if (outcome.kind === 'refused') {
    await ctx.respond(errorMessage(outcome.sentence));
    return;
  }
  await ctx.respond(noticeMessage(`Alias \`${escapeMrkdwn(name)}\` removed.`, `Alias ${name} removed`));
}

/** `/runbook <alias> …`; false when the channel has no such alias (the caller answers with help). */
export async function useAlias(ctx: HandlerContext, use: AliasUse): Promise<boolean> {
  const alias = await aliasFor(ctx.deps, await actorHere(ctx), use.name);
  if (!alias) return false;
  await startLineRun(ctx, {
    runbookId: alias.runbookId,
    values: { ...aliasValues(alias), ...use.values },
    now: use.now,
    proxyId: alias.proxyId,
    destination: alias.resultChannel,
    savedBy: alias.resultChannel ? { userId: alias.createdBy, alias: alias.name } : null,
    alias: alias.name,
  });
  return true;
}

export async function channelDefaultsCommand(
  ctx: HandlerContext,
  command: Extract<ParsedCommand, { kind: 'defaults' }>,
): Promise<void> {
  const { deps } = ctx;
  const current = ctx.channelId ? await deps.access.store.channelDefaults.get(ctx.channelId, installationKey()) : null;
  if (!command.clear && command.proxy === null && command.to === null) {
    const saved = current ? { resultChannel: current.resultChannel, by: current.updatedBy, alias: null } : null;
    const problem = await savedProblem(ctx, saved);
    await ctx.respond(
      buildChannelDefaults(current, deps.proxies.defaultProxy(), (id) => deps.proxies.nameOf(id), problem),
    );
    return;
  }
  const target = await resolveTo(ctx, command.to);
  if (!target) return;
  const none = (v: string | null) => (v === null ? undefined : v.toLowerCase() === 'none' ? null : v);
  // Whoever changes the defaults answers for the result channel they keep (it is judged against them later).
  const kept = command.clear ? null : target.to === null ? (current?.resultChannel ?? null) : none(target.to);
  const actor = await actorSaving(ctx, kept ?? null);
  const outcome = await changeChannelDefaults(
    deps,
    actor,
    command.clear ? 'clear' : { proxyId: none(command.proxy), resultChannel: none(target.to) },
  );
  if (outcome.kind === 'refused') {
    await ctx.respond(errorMessage(outcome.sentence));
    return;
  }
  await ctx.respond(buildChannelDefaults(outcome.value, deps.proxies.defaultProxy(), (id) => deps.proxies.nameOf(id)));
}

/** Why a saved result channel no longer passes (for `defaults` and `alias list`), or null. */
async function savedProblem(
  ctx: HandlerContext,
  saved: { resultChannel: string | null; by: string; alias: string | null } | null,
): Promise<string | null> {
  if (!saved?.resultChannel) return null;
  const destination = await ctx.deps.access.places.destination(
    ctx.client,
    saved.resultChannel,
    saved.by,
    saved.alias ? savedAlias(saved.alias) : SAVED_DEFAULTS,
  );
  return judgeDestination(destination, null);
}
