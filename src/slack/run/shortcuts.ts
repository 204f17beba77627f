// The shortcuts: the global "Run a runbook" (the run modal with the typeahead picker), and the
// message shortcut "Run a runbook…" (the same picker, with the message carried as context: its
// permalink is shown on the card, "started from <message>", and the result goes to its channel; from a
// reply in a thread, into that thread).
import type { GlobalShortcut, MessageShortcut } from '@slack/bolt';
import type { HandlerContext } from '../kit/handler-context.ts';
import type { ShortcutArgs } from '../kit/listen.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { openRunModal } from '../kit/run-start.ts';

export async function runShortcutUsed({ ack }: ShortcutArgs<GlobalShortcut>, ctx: HandlerContext): Promise<void> {
  await ack();
  try {
    await openRunModal(ctx, {});
  } catch (err) {
    await reportFailure(ctx, err, 'Opening the run form');
  }
}

export async function messageShortcutUsed(
  { ack, body, client }: ShortcutArgs<MessageShortcut>,
  ctx: HandlerContext,
): Promise<void> {
  await ack();
  try {
    const link = await client.chat
      .getPermalink({ channel: body.channel.id, message_ts: body.message.ts })
      .then((r) => r.permalink ?? null)
      .catch(() => null);
    // A reply in a thread: the card goes into that thread (its parent's ts), as from a mention there.
    const parent = (body.message as { thread_ts?: unknown }).thread_ts;
    const threadTs = typeof parent === 'string' && parent !== body.message.ts ? parent : null;
    // One quick call before the form opens, well inside the trigger's 3 s.
    await openRunModal(ctx, { withPicker: true, sourceLink: link, threadTs });
  } catch (err) {
    await reportFailure(ctx, err, 'Opening the run form');
  }
}
