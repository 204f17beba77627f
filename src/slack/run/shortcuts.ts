// The shortcuts: the global "Run a runbook" (the run modal with the typeahead picker), and the
// message shortcut "Run a runbook…" (the same picker, with the message carried as context: its
// permalink is shown on the card, "started from <message>", and the result goes to its channel).
import type { App, GlobalShortcut, MessageShortcut } from '@slack/bolt';
import type { SlackDeps } from '../kit/deps.ts';
import { SHORTCUTS } from '../kit/ids.ts';
import { interactionContext } from '../kit/interaction-context.ts';
import { reportFailure } from '../kit/report-failure.ts';
import { openRunModal } from '../kit/run-start.ts';

export function registerShortcuts(app: App, deps: SlackDeps): void {
  app.shortcut<GlobalShortcut>(SHORTCUTS.runRunbook, async ({ ack, body, client }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, undefined);
    try {
      await openRunModal(ctx, {});
    } catch (err) {
      await reportFailure(ctx, err, 'Opening the run form');
    }
  });

  app.shortcut<MessageShortcut>(SHORTCUTS.runFromMessage, async ({ ack, body, client, respond }) => {
    await ack();
    const ctx = interactionContext(deps, client, body, respond);
    try {
      const link = await client.chat
        .getPermalink({ channel: body.channel.id, message_ts: body.message.ts })
        .then((r) => r.permalink ?? null)
        .catch(() => null);
      // One quick call before the form opens, well inside the trigger's 3 s.
      await openRunModal(ctx, { withPicker: true, sourceLink: link });
    } catch (err) {
      await reportFailure(ctx, err, 'Opening the run form');
    }
  });
}
