// The entry point a run was started from (or refused on): the one thing in which the audit records of the
// same values started from different places differ. A record ends with `; via <entry>` — started
// (`run.start` ok/error), refused (`run.start` denied) or refused before the run, at its form or
// confirmation (`run.open` denied) — on every path alike.

export type RunEntry = 'form' | 'one-line' | 'alias' | 'rerun' | 'schedule-run-now' | 'approval' | 'workflow-step';

export const RUN_ENTRIES: readonly RunEntry[] = [
  'form',
  'one-line',
  'alias',
  'rerun',
  'schedule-run-now',
  'approval',
  'workflow-step',
];

export function isRunEntry(value: unknown): value is RunEntry {
  return typeof value === 'string' && (RUN_ENTRIES as readonly string[]).includes(value);
}

/** The entry point as a record names it: `alias`, `approval (approved by U1, U2)`. */
export function viaText(via: RunEntry, approvedBy?: string | readonly string[]): string {
  return approvedBy === undefined ? via : `${via} (approved by ${[approvedBy].flat().join(', ')})`;
}

/** `detail` with the entry point as its last part: `…; via alias`, `…; via approval (approved by U1, U2)`. */
export function withVia(detail: string, via: RunEntry, approvedBy?: string | readonly string[]): string {
  return `${detail}; via ${viaText(via, approvedBy)}`;
}
