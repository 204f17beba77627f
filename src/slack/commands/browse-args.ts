import type { ListState } from '../blocks/runbook-list.ts';
import type { ParsedCommand } from '../parse-command.ts';

/** `/runbook list …` → the browser's first page state. */
export function browseFromCommand(command: Extract<ParsedCommand, { kind: 'list' }>): ListState {
  return { w: command.query, s: command.scope, c: command.category, p: 0 };
}
