import { describeApiError, RunbookApiError } from '../api/errors.ts';
import { slackErrorCode } from './post-to-conversation.ts';
import { UserFacingError } from './user-facing-error.ts';

/** Why a run that was not refused before it was tried did not start, in one sentence. */
export function notStartedSentence(
  runbookName: string,
  result: { kind: 'failed'; error: unknown } | { kind: 'approval-requested' } | { kind: string; sentence: string },
): string {
  if (result.kind === 'failed' && 'error' in result)
    return `${runbookName} did not start. ${describeFailure(result.error)}`;
  if ('sentence' in result) return result.sentence;
  return `${runbookName} needs approval.`;
}

/** One sentence for a failure from anywhere: our own words, the Runbook API, or Slack. */
export function describeFailure(err: unknown): string {
  if (err instanceof UserFacingError) return err.message;
  if (err instanceof RunbookApiError) return describeApiError(err);
  const code = slackErrorCode(err);
  if (code) return `Slack refused the request (${code}); try again, and tell the bot admins if it keeps happening.`;
  return describeApiError(err);
}
