// AUDIT_RETENTION_DAYS through the real runtime: the pass it runs (here at once, by tick()) deletes audit
// entries older than the retention and keeps newer ones — in single-workspace mode by the bot's own clock,
// and in many-workspace mode for an installed workspace too (independent of uninstall); unset, nothing goes.
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/store/store.ts';
import { type Harness, startHarness } from '../support/bot-harness.ts';
import { type OAuthHarness, startOAuthHarness } from '../support/oauth-harness.ts';

const DAY = 24 * 60 * 60 * 1000;

function entry(at: number, target: string, installationId?: string): AuditEntry {
  return {
    at,
    userId: 'U01ALICE',
    teamId: installationId ?? 'T01',
    channel: 'C01OPS',
    action: 'run.start',
    target,
    outcome: 'ok',
    detail: null,
    tid: null,
    ...(installationId ? { installationId } : {}),
  };
}

describe('AUDIT_RETENTION_DAYS', () => {
  let h: Harness | undefined;
  let o: OAuthHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    await o?.stop();
    h = undefined;
    o = undefined;
  });

  it('single workspace: an entry older than a day is gone after the pass, a newer one stays', async () => {
    h = await startHarness({ env: { AUDIT_RETENTION_DAYS: '1' }, sharedClock: true });
    const now = h.clock.now();
    await h.runtime.store.audit.append(entry(now - 2 * DAY, 'old'));
    await h.runtime.store.audit.append(entry(now - DAY + 60_000, 'recent'));
    await h.runtime.tick();
    expect((await h.runtime.store.audit.recent(10)).map((e) => e.target)).toEqual(['recent']);
    expect(h.logs.join('')).toContain('deleted 1 audit entries older than AUDIT_RETENTION_DAYS');
    // A day later by the bot's clock, the other one goes too.
    h.clock.set(now + DAY);
    await h.runtime.tick();
    expect(await h.runtime.store.audit.recent(10)).toEqual([]);
  });

  it('unset: the audit trail is kept, however old', async () => {
    h = await startHarness({ sharedClock: true });
    await h.runtime.store.audit.append(entry(h.clock.now() - 3_650 * DAY, 'ancient'));
    await h.runtime.tick();
    expect((await h.runtime.store.audit.recent(10)).map((e) => e.target)).toEqual(['ancient']);
    expect(h.logs.join('')).not.toContain('AUDIT_RETENTION_DAYS');
  });

  it('many workspaces: an installed workspace’s old entries go too, its install entry stays', async () => {
    o = await startOAuthHarness({ env: { AUDIT_RETENTION_DAYS: '1' } });
    expect((await o.install('T0SECOND')).status).toBe(200);
    await o.runtime.store.audit.append(entry(Date.now() - 2 * DAY, 'old', 'T0SECOND'));
    await o.runtime.tick();
    const left = await o.runtime.store.audit.recent(50, 'T0SECOND');
    expect(left.map((e) => e.target)).not.toContain('old');
    expect(left.map((e) => e.action)).toContain('app.install');
    expect(await o.runtime.store.installations.get('T0SECOND')).not.toBeNull();
  });
});
