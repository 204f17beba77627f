// A button that makes something happen works once per person who may use it: the first click claims it in
// the store (so replicas agree), and a second click, a replayed payload or the same click delivered to
// another replica finds the claim and changes nothing.
import type { RunsDeps } from './deps.ts';

/** The sentence for a click that was already acted on. */
export const ALREADY_DONE = 'That was already done, so nothing more happened.';

/**
 * Claims one click: `what` names the action and its target, `where` the message it was clicked in (a
 * used confirmation, not the next one), `who` the person (Approve counts once per approver).
 */
export function claimClick(
  deps: Pick<RunsDeps, 'access' | 'now'>,
  click: { what: string; where: string; who: string },
): Promise<boolean> {
  return deps.access.store.notifications.claim(`click:${click.what}:${click.where}:${click.who}`, deps.now());
}
