import { channel } from 'node:diagnostics_channel';
import { describeApiError, InvalidIdError, RunbookApiError } from '../../api/errors.ts';
import { slackErrorCode } from './post-to-conversation.ts';
import { UserFacingError } from './user-facing-error.ts';

/** What kind of failure a person was shown. */
export type FailureKind = 'refused' | 'runbook_api' | 'slack' | 'internal';

/**
 * Every failure turned into a sentence for a person is published here as `{ kind }` (the metrics
 * of src/ops subscribe); nothing is published while nobody listens.
 */
export const FAILURE_SHOWN_CHANNEL = channel('runbook-bot:failure-shown');

function shown(kind: FailureKind, sentence: string): string {
  if (FAILURE_SHOWN_CHANNEL.hasSubscribers) FAILURE_SHOWN_CHANNEL.publish({ kind });
  return sentence;
}

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

/**
 * The one place an error becomes the sentence a person reads, whatever failed: our own words (a
 * UserFacingError, such as the user-group fail-closed sentence), the Runbook API (with its request id),
 * or Slack (its error code). Refusals by the policy and field validation arrive as sentences already.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof UserFacingError) return shown('refused', err.message);
  // An id that is not one is the person's input, refused before any request.
  if (err instanceof InvalidIdError) return shown('refused', describeApiError(err));
  if (err instanceof RunbookApiError) return shown('runbook_api', describeApiError(err));
  const code = slackErrorCode(err) ?? slackTransportCode(err);
  if (code) {
    return shown(
      'slack',
      `Slack refused the request (${code}); try again, and tell the bot admins if it keeps happening.`,
    );
  }
  return shown(
    'internal',
    'Something went wrong on the bot’s side; try again, and tell the bot admins if it keeps happening.',
  );
}

/** The sentence with a closing full stop, unless it already ends in one (or `?`, `!`). */
export function withFullStop(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Whether the failure was the person's own input (answered alone, not logged as a fault). */
export function isInputFailure(err: unknown): boolean {
  return err instanceof InvalidIdError;
}

/** The Web API client's own failures (no answer, an HTTP error, rate limited) carry a `slack_webapi_…` code. */
function slackTransportCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('slack_') ? code : null;
}
