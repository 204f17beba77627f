// The /runbook line's listeners: the slash command, @mentions and their "Open the form", pick lists.
import { ACTIONS, COMMAND } from '../kit/ids.ts';
import { action, button, command, event, type Registration, suffixed } from '../kit/listen.ts';
import { runbookCommand } from './commands.ts';
import { mentionReceived, openFormClicked } from './mentions.ts';
import { pickClicked } from './pick-actions.ts';

export const commandListeners: readonly Registration[] = [
  command(COMMAND, runbookCommand),
  event('app_mention', mentionReceived),
  action({ action_id: ACTIONS.mentionOpenForm }, 'navigating', openFormClicked),
  button(suffixed(ACTIONS.pickRunbook), 'Opening the runbook', 'navigating', pickClicked),
];
