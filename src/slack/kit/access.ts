// The actor and the `view` filter of a handler's person, for the use cases in src/runs/.
import type { Actor } from '../../runs/actor.ts';
import { type Look, type Visibility, visibilityFor } from '../../runs/visibility.ts';
import { actorFor } from './actor.ts';
import type { HandlerContext } from './handler-context.ts';
import { buildRunbookChoice, type PickThen } from './runbook-choice.ts';

/** The person behind a handler, where they acted (fails closed on user groups; see actor.ts). */
export function actorOf(
  ctx: HandlerContext,
  options: { email?: boolean; destinationChannel?: string | null } = {},
): Promise<Actor> {
  const who = {
    userId: ctx.userId,
    teamId: ctx.teamId,
    enterpriseId: ctx.enterpriseId ?? null,
    channelId: ctx.channelId,
    ...(options.destinationChannel !== undefined ? { destinationChannel: options.destinationChannel } : {}),
  };
  return actorFor(ctx.deps, ctx.client, who, options.email ? { email: true } : {});
}

/** Which runbooks the handler's person may view where they are. */
export async function visibleTo(ctx: HandlerContext): Promise<Visibility> {
  return visibilityFor(ctx.deps, await actorOf(ctx));
}

/**
 * The runbook a command names: the id a button carried, or `<runbook>` typed, resolved among those the
 * person may view. When the text matches several or none, the pick list (or the closest names) is the
 * answer and null comes back.
 */
export async function namedRunbookId(
  ctx: HandlerContext,
  visible: Visibility,
  query: { text?: string | null; id?: string },
  look: Look,
  then: PickThen,
): Promise<string | null> {
  if (query.id) return query.id;
  const resolution = await visible.resolve(query.text ?? '', look);
  if (resolution.kind === 'match') return resolution.runbook.id;
  await ctx.respond(buildRunbookChoice(query.text ?? '', resolution, then));
  return null;
}
