// The one place a failed interaction becomes a message: logged with context, answered with one
// sentence that says what happened and what to do, with the API request id when there is one.
import { errorMessage } from './common.ts';
import { describeFailure, isInputFailure, withFullStop } from './describe-failure.ts';
import type { HandlerContext } from './handler-context.ts';

export async function reportFailure(ctx: HandlerContext, err: unknown, what: string): Promise<void> {
  // A mistyped id is the person's input, not a fault: one sentence back, no warning with a stack.
  const input = isInputFailure(err);
  if (input) ctx.deps.logger.info({ what, user: ctx.userId, reason: (err as Error).message }, 'input refused');
  else ctx.deps.logger.warn({ err, what, user: ctx.userId }, 'interaction failed');
  try {
    const sentence = withFullStop(describeFailure(err));
    await ctx.respond(errorMessage(input ? sentence : `${what} failed. ${sentence}`));
  } catch (respondErr) {
    ctx.deps.logger.error({ err: respondErr, what }, 'could not tell the user about a failure');
  }
}
