// The global shortcut "Run a runbook": the run modal with the typeahead picker.
import type { App, GlobalShortcut } from '@slack/bolt';
import { openRunModal } from '../commands/run.ts';
import type { SlackDeps } from '../deps.ts';
import { SHORTCUTS } from '../ids.ts';
import { interactionContext } from './interaction-context.ts';
import { reportFailure } from './report-failure.ts';

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
}
