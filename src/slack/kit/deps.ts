// What the Slack layer needs from the rest of the app. Listeners get everything from here, so tests
// build the same object with the emulator, a fake Slack and an in-memory store.
import type { RunRateLimit } from '../../policy/run-rate-limit.ts';
import type { RunsAccess, RunsDeps } from '../../runs/deps.ts';
import type { Identity } from './identity.ts';
import type { MetadataSeal } from './metadata-seal.ts';
import type { Places } from './places.ts';
import type { RunDrafts } from './run-drafts.ts';
import type { TenancyDeps } from './tenancy.ts';

// The run-tracking contract lives with the use cases (src/runs/), below both Slack and the watcher.
export type { AdoptedRun, RunTracker, StartedRun } from '../../runs/run-tracker.ts';

/** Who may do what, approvals, identity and the audit trail. */
export interface AccessDeps extends RunsAccess {
  identity: Identity;
  /** What Slack says about a destination (exists, bot can post, chooser is a member), cached. */
  places: Places;
  /** Seals modal private_metadata so a crafted submission cannot switch runbook or target. */
  seal: MetadataSeal;
  runLimit: RunRateLimit;
}

/** The use cases' dependencies (src/runs/deps.ts) plus what only Slack needs. */
export interface SlackDeps extends RunsDeps {
  drafts: RunDrafts;
  access: AccessDeps;
  /** Many-workspace mode: the installation these deps serve and its Runbook API connection; else absent. */
  tenancy?: TenancyDeps;
}
