// The one place a failed interaction becomes a message: logged with context, answered with one
// sentence that says what happened and what to do, with the API request id when there is one.
import { errorMessage } from '../blocks/common.ts';
import type { HandlerContext } from '../commands/context.ts';
import { describeFailure } from '../describe-failure.ts';

export async function reportFailure(ctx: HandlerContext, err: unknown, what: string): Promise<void> {
  ctx.deps.logger.warn({ err, what, user: ctx.userId }, 'interaction failed');
  try {
    await ctx.respond(errorMessage(`${what} failed. ${describeFailure(err)}`));
  } catch (respondErr) {
    ctx.deps.logger.error({ err: respondErr, what }, 'could not tell the user about a failure');
  }
}
