// The health feature's listeners: none of its own. `/runbook health` comes through command/, and its
// Health and Details buttons are the pick list's and the browser's.
import type { Registration } from '../kit/listen.ts';

export const healthListeners: readonly Registration[] = [];
