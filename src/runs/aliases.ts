// Saved runs ("aliases") and run defaults per channel. Managing them is a `schedule`-class action:
// like a schedule, an alias is a standing run configuration shared by a channel. Adding one needs
// view + schedule + run for its runbook in that channel (the gate's `schedule` intent); removing one
// needs view + schedule (`change-schedule`). Using one is an ordinary run: the same gate as any run,
// decided when it is used. Channel defaults need `schedule` by a rule not limited to particular
// runbooks (checked against "any runbook"). A saved result channel (`--to`) is checked like a permission
// when saved (destinations.ts: it exists, the bot can post there, the person saving it is in it, never a
// DM) and again on every use, against who saved it. Every change and every refusal is audited.
import type { Workflow } from '../api/schemas.ts';
import type { ChannelDefaults, RunAlias } from '../store/saved-runs.ts';
import { installationKey } from '../tenants/tenant-scope.ts';
import type { Actor } from './actor.ts';
import type { RunsDeps } from './deps.ts';
import {
  bareFacts,
  gate,
  recordAction,
  recordDenial,
  refuseSavedDestination,
  runbookFacts,
  subjectOf,
} from './gate.ts';
import { proxyRefusal } from './run-choice.ts';

export type AliasOutcome<T> =
  | { kind: 'ok'; value: T }
  /** hidden: `view` denied (the sentence does not name the runbook). */
  | { kind: 'refused'; reason: 'hidden' | 'denied' | 'invalid' | 'misdirected'; sentence: string };

function audited(deps: RunsDeps, actor: Actor, action: string, target: string, detail: string): Promise<void> {
  return recordAction(deps, actor, action, target, 'ok', detail);
}

export async function addAlias(
  deps: RunsDeps,
  actor: Actor,
  alias: {
    name: string;
    runbook: Workflow;
    /** Typed values as given (`key=value`), secrets never among them. */
    values: Record<string, string>;
    proxyId: string | null;
    resultChannel: string | null;
    /** Replace an alias of that name; without it adding over one is refused (never replaced silently). */
    replace?: boolean;
  },
): Promise<AliasOutcome<'added' | 'updated'>> {
  const channel = actor.channelId;
  if (!channel)
    return {
      kind: 'refused',
      reason: 'invalid',
      sentence: 'Aliases belong to a channel; add it in the channel that uses it.',
    };
  const badProxy = alias.proxyId ? await proxyRefusal(deps, alias.runbook, alias.proxyId, 'Not saved: ') : null;
  if (badProxy) return { kind: 'refused', reason: 'invalid', sentence: badProxy };
  const verdict = await gate(deps, actor, {
    intent: 'schedule',
    runbook: runbookFacts(deps, alias.runbook),
    auditAction: 'alias.add',
    auditTarget: `alias ${alias.name}`,
  });
  if (!verdict.allowed)
    return { kind: 'refused', reason: verdict.reason === 'hidden' ? 'hidden' : 'denied', sentence: verdict.sentence };
  const existing = alias.replace ? null : await deps.access.store.aliases.get(channel, alias.name, installationKey());
  if (existing) {
    return {
      kind: 'refused',
      reason: 'invalid',
      sentence: `This channel already has an alias \`${alias.name}\` (for ${existing.runbookName}); nothing changed. Add \`--replace\` to replace it, or pick another name.`,
    };
  }
  const misdirected = await refuseSavedDestination(
    deps,
    { ...actor, destinationChannel: alias.resultChannel },
    { action: 'alias.add', target: `alias ${alias.name}` },
  );
  if (misdirected) return { kind: 'refused', reason: 'misdirected', sentence: misdirected };
  const added = await deps.access.store.aliases.add(
    {
      channel,
      name: alias.name,
      runbookId: alias.runbook.id,
      runbookName: alias.runbook.name,
      params: JSON.stringify(alias.values),
      proxyId: alias.proxyId,
      resultChannel: alias.resultChannel,
      createdBy: actor.userId,
      teamId: actor.teamId,
    },
    deps.now(),
    installationKey(),
  );
  await audited(
    deps,
    actor,
    'alias.add',
    `alias ${alias.name}`,
    `${added}: ${alias.runbook.name} (${alias.runbook.id}); values ${Object.keys(alias.values).join(', ') || 'none'}`,
  );
  return { kind: 'ok', value: added };
}

export async function removeAlias(deps: RunsDeps, actor: Actor, name: string): Promise<AliasOutcome<RunAlias>> {
  const channel = actor.channelId;
  const alias = channel ? await deps.access.store.aliases.get(channel, name, installationKey()) : null;
  if (!alias)
    return {
      kind: 'refused',
      reason: 'invalid',
      sentence: `This channel has no alias \`${name}\`; see /runbook alias list.`,
    };
  const verdict = await gate(deps, actor, {
    intent: 'change-schedule',
    runbook: bareFacts(alias.runbookId, alias.runbookName),
    auditAction: 'alias.remove',
    auditTarget: `alias ${name}`,
  });
  if (!verdict.allowed)
    return { kind: 'refused', reason: verdict.reason === 'hidden' ? 'hidden' : 'denied', sentence: verdict.sentence };
  await deps.access.store.aliases.remove(alias.channel, name, installationKey());
  await audited(deps, actor, 'alias.remove', `alias ${name}`, `${alias.runbookName} (${alias.runbookId})`);
  return { kind: 'ok', value: alias };
}

/** The channel's aliases the actor may view (an alias never names a runbook hidden from them). */
export async function listAliases(deps: RunsDeps, actor: Actor): Promise<RunAlias[]> {
  if (!actor.channelId) return [];
  const all = await deps.access.store.aliases.listForChannel(actor.channelId, installationKey());
  return all.filter(
    (a) =>
      deps.access.policy.decide('view', subjectOf(actor, actor.channelId), bareFacts(a.runbookId, a.runbookName))
        .allowed,
  );
}

/** An alias to use: null when the channel has none by that name (or its runbook is hidden from the actor). */
export async function aliasFor(deps: RunsDeps, actor: Actor, name: string): Promise<RunAlias | null> {
  if (!actor.channelId) return null;
  const alias = await deps.access.store.aliases.get(actor.channelId, name, installationKey());
  if (!alias) return null;
  const view = deps.access.policy.decide(
    'view',
    subjectOf(actor, actor.channelId),
    bareFacts(alias.runbookId, alias.runbookName),
  );
  return view.allowed ? alias : null;
}

/** The typed values saved on an alias. */
export function aliasValues(alias: RunAlias): Record<string, string> {
  try {
    const parsed = JSON.parse(alias.params) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

export async function changeChannelDefaults(
  deps: RunsDeps,
  actor: Actor,
  change: { proxyId?: string | null; resultChannel?: string | null } | 'clear',
): Promise<AliasOutcome<ChannelDefaults | null>> {
  const channel = actor.channelId;
  if (!channel)
    return {
      kind: 'refused',
      reason: 'invalid',
      sentence: 'Run defaults belong to a channel; set them in that channel.',
    };
  const decision = deps.access.policy.decide('schedule', subjectOf(actor, channel), bareFacts('*', '*'));
  if (!decision.allowed) {
    await recordDenial(deps, actor, {
      action: 'defaults.set',
      target: `channel ${channel}`,
      sentence: decision.message,
    });
    return { kind: 'refused', reason: 'denied', sentence: decision.message };
  }
  if (change === 'clear') {
    await deps.access.store.channelDefaults.clear(channel, installationKey());
    await audited(deps, actor, 'defaults.clear', `channel ${channel}`, 'cleared');
    return { kind: 'ok', value: null };
  }
  // The same check as an alias's --proxy: a default nobody can run on is refused, not stored.
  if (change.proxyId) {
    const badDefault = await proxyRefusal(deps, null, change.proxyId, 'Not saved: ');
    if (badDefault) {
      return { kind: 'refused', reason: 'invalid', sentence: badDefault };
    }
  }
  // The saved result channel is judged against whoever last changed the defaults, so changing only the
  // proxy makes the person answer for the result channel they keep.
  const kept = change.resultChannel === undefined;
  const resultChannel = kept
    ? ((await deps.access.store.channelDefaults.get(channel, installationKey()))?.resultChannel ?? null)
    : change.resultChannel;
  if (resultChannel) {
    const misdirected = await refuseSavedDestination(
      deps,
      { ...actor, destinationChannel: resultChannel },
      { action: 'defaults.set', target: `channel ${channel}` },
    );
    if (misdirected) {
      const sentence = kept
        ? `Not saved: these defaults keep their result channel, and you would answer for it. ${misdirected}`
        : misdirected;
      return { kind: 'refused', reason: 'misdirected', sentence };
    }
  }
  const saved = await deps.access.store.channelDefaults.set(
    channel,
    change,
    actor.userId,
    deps.now(),
    installationKey(),
  );
  await audited(
    deps,
    actor,
    'defaults.set',
    `channel ${channel}`,
    `proxy ${saved.proxyId ?? 'none'}; results to ${saved.resultChannel ?? 'this channel'}`,
  );
  return { kind: 'ok', value: saved };
}
