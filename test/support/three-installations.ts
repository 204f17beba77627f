// The three installations of the many-workspace end-to-end tests (three-installations, the isolation table,
// policy teams): two workspaces (A, B) and one Enterprise Grid org installed org-wide (G), each with a person
// who asks and one who approves, and the keys of B's and G's Runbook API tenants.
import { expect } from 'vitest';
import type { OAuthHarness } from './oauth-harness.ts';
import type { Person } from './tenant-flows.ts';

export const KEY_B = 'tenant-b-key-0123456789';
export const KEY_G = 'tenant-g-key-0123456789';

/** A runbook only B's tenant has, and one only G's has. */
export const ONLY_IN = { B: 'Postgres Vacuum Analyze', G: 'Find Unattached EBS Volumes' };

export interface Installed {
  key: 'A' | 'B' | 'G';
  installation: string;
  requester: Person;
  approver: Person;
}

export const INSTALLED: Record<Installed['key'], Installed> = {
  A: {
    key: 'A',
    installation: 'T0SANDBOX',
    requester: { id: 'U01ALICE', team: 'T0SANDBOX' },
    approver: { id: 'U02BOB', team: 'T0SANDBOX' },
  },
  B: {
    key: 'B',
    installation: 'T0SECOND',
    requester: { id: 'U11SAM', team: 'T0SECOND' },
    approver: { id: 'U12ZED', team: 'T0SECOND' },
  },
  G: {
    key: 'G',
    installation: 'E0ACMEGRID',
    requester: { id: 'U21EVA', team: 'T0GRIDA' },
    // In the org's other workspace: the one org-wide installation serves both.
    approver: { id: 'U22UMA', team: 'T0GRIDB' },
  },
};

/** Installs `installation` (not connected) and connects it to the tenant of `apiKey`, as `by`. */
export async function installAndConnect(
  h: OAuthHarness,
  installation: string,
  apiKey: string,
  by = 'U0HARNESS',
): Promise<void> {
  expect((await h.install(installation, { connect: false })).status).toBe(200);
  const connected = await h.runtime.tenants!.connections.connect(installation, { apiKey }, by);
  expect(connected.ok).toBe(true);
}
