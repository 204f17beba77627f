// Small facts about executions and runbook names that the use cases, the Slack layer and the watcher
// all need; here so that each imports them downward.
import type { Execution } from '../api/schemas.ts';

/** The subscription target meaning "every runbook". */
export const ALL_RUNBOOKS = '*';

/** Executions carry only the runbook's name: names compare case- and edge-space-insensitively. */
export function sameRunbookName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Terminal = will not change any more. Unknown (new) statuses count as terminal once they have an end time. */
export function isTerminal(execution: Pick<Execution, 'executionStatus' | 'endTime'>): boolean {
  const status = execution.executionStatus;
  if (status === 'EXECUTION_STATUS_SUCCEEDED' || status === 'EXECUTION_STATUS_FAILED') return true;
  if (status === 'EXECUTION_STATUS_IN_PROGRESS') return false;
  return execution.endTime !== null && execution.endTime !== '';
}

/** An execution's inputs: a JSON object, or text shown as it is. */
export type ExecutionInputs = { kind: 'object'; values: Record<string, unknown> } | { kind: 'text'; text: string };

/** `inputs` is a JSON object serialised as a string ("{}" when empty); anything else is shown as text. */
export function parseExecutionInputs(raw: string): ExecutionInputs {
  const text = raw.trim();
  if (text === '') return { kind: 'object', values: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { kind: 'object', values: value as Record<string, unknown> };
    }
  } catch {
    // Not JSON: fall through and show the raw text.
  }
  return { kind: 'text', text: raw };
}

/** Key names that hold credentials even when the runbook's schema does not mark them secret. */
export { SECRET_KEY } from '../forms/secret-schema.ts';
