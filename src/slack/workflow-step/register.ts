// The Workflow Builder step's listener.
import { FUNCTIONS } from '../kit/ids.ts';
import { type Registration, stepFunction } from '../kit/listen.ts';
import { runStepExecuted } from './workflow-steps.ts';

export const workflowStepListeners: readonly Registration[] = [stepFunction(FUNCTIONS.runRunbook, runStepExecuted)];
