// Whether the API lets a runbook run at all (independent of who asks).
import type { Workflow } from '../api/schemas.ts';

export function isRunnable(runbook: Workflow): boolean {
  return !(runbook.runningDisabled || runbook.executionDisabled || runbook.runningDisabledByFloatingEnv);
}

export function disabledReason(runbook: Workflow): string {
  if (runbook.runningDisabledByFloatingEnv) return 'its environment is not ready';
  if (runbook.executionDisabled) return 'execution of this runbook is disabled';
  return 'running this runbook is disabled';
}
