import { channel } from 'node:diagnostics_channel';
import { describeApiError, RunbookApiError } from '../api/errors.ts';
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

/** One sentence for a failure from anywhere: our own words, the Runbook API, or Slack. */
export function describeFailure(err: unknown): string {
  if (err instanceof UserFacingError) return shown('refused', err.message);
  if (err instanceof RunbookApiError) return shown('runbook_api', describeApiError(err));
  const code = slackErrorCode(err);
  if (code) {
    return shown(
      'slack',
      `Slack refused the request (${code}); try again, and tell the bot admins if it keeps happening.`,
    );
  }
  return shown('internal', describeApiError(err));
}
