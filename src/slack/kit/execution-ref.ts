// The execution a person named in `/runbook status` or `watch`: a full id, or a unique prefix among
// recent executions; otherwise the candidates, or why nothing matched, are answered here.
import { MIN_PREFIX, resolveExecutionRef } from '../../runs/execution-ref.ts';
import { actorOf } from './access.ts';
import { errorMessage } from './common.ts';
import { describeFailure, withFullStop } from './describe-failure.ts';
import {
  buildAmbiguousPrefix,
  buildNoPrefixMatch,
  buildPrefixTooShort,
  type PrefixCommand,
} from './execution-candidates.ts';
import type { HandlerContext } from './handler-context.ts';

/** The full id, or null once the person has been answered (ambiguous, too short, no match). */
export async function executionIdFor(
  ctx: HandlerContext,
  typed: string,
  command: PrefixCommand,
  replaceOriginal = false,
): Promise<string | null> {
  const ref = await resolveExecutionRef(ctx.deps, await actorOf(ctx), typed);
  switch (ref.kind) {
    case 'id':
      return ref.id;
    case 'ambiguous':
      await ctx.respond({ ...buildAmbiguousPrefix(ref.prefix, ref.candidates, ref.more, command), replaceOriginal });
      return null;
    case 'invalid':
      await ctx.respond({ ...errorMessage(withFullStop(describeFailure(ref.error))), replaceOriginal });
      return null;
    case 'too-short':
      await ctx.respond({ ...buildPrefixTooShort(ref.prefix, MIN_PREFIX), replaceOriginal });
      return null;
    case 'none':
      await ctx.respond({ ...buildNoPrefixMatch(ref.prefix), replaceOriginal });
      return null;
  }
}
