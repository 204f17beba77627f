import { describeApiError, RunbookApiError } from '../api/errors.ts';
import { slackErrorCode } from './post-to-conversation.ts';
import { UserFacingError } from './user-facing-error.ts';

/**
 * The one place an error becomes the sentence a person reads, whatever failed: our own words (a
 * UserFacingError, such as the user-group fail-closed sentence), the Runbook API (with its request id),
 * or Slack (its error code). Refusals by the policy and field validation arrive as sentences already.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof UserFacingError) return err.message;
  if (err instanceof RunbookApiError) return describeApiError(err);
  const code = slackErrorCode(err) ?? slackTransportCode(err);
  if (code) return `Slack refused the request (${code}); try again, and tell the bot admins if it keeps happening.`;
  return 'Something went wrong on the bot’s side; try again, and tell the bot admins if it keeps happening.';
}

/** The Web API client's own failures (no answer, an HTTP error, rate limited) carry a `slack_webapi_…` code. */
function slackTransportCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('slack_') ? code : null;
}
