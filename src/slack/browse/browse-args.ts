import type { ParsedCommand } from '../kit/parse-command.ts';
import type { ListState } from '../kit/runbook-list.ts';

/** `/runbook list …` → the browser's first page state. */
export function browseFromCommand(command: Extract<ParsedCommand, { kind: 'list' }>): ListState {
  return { w: command.query, s: command.scope, c: command.category, p: 0 };
}
