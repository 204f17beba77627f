// Change-freeze windows: inside?, when the occurrence ends, when the next one starts — fixed dates read in
// their zone, cron + duration across DST changes — and which runs and people a window covers.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freezeSentence, instantOf, parseDuration, windowState } from '../../../src/policy/freezes.ts';
import { PolicyError, parsePolicy } from '../../../src/policy/load-policy.ts';
import type { RunbookFacts } from '../../../src/policy/policy.ts';

const H = 3_600_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('parseDuration', () => {
  it('reads minutes, hours, days and weeks, alone or together', () => {
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('63h')).toBe(63 * H);
    expect(parseDuration('1d12h')).toBe(36 * H);
    expect(parseDuration('2w')).toBe(14 * 24 * H);
  });
  it('refuses what is not a duration', () => {
    for (const bad of ['', '0h', 'h', '3', '1y', '-1h', 'soon']) expect(parseDuration(bad)).toBeNull();
  });
});

describe('instantOf', () => {
  it('reads a wall time in the zone, on both sides of a DST change', () => {
    expect(iso(instantOf('2026-12-24T18:00', 'Europe/Berlin'))).toBe('2026-12-24T17:00:00.000Z');
    expect(iso(instantOf('2026-07-01T18:00', 'Europe/Berlin'))).toBe('2026-07-01T16:00:00.000Z');
    expect(iso(instantOf('2026-03-08T12:00', 'America/New_York'))).toBe('2026-03-08T16:00:00.000Z');
    expect(iso(instantOf('2026-03-07T12:00', 'America/New_York'))).toBe('2026-03-07T17:00:00.000Z');
    expect(iso(instantOf('2026-12-24', 'UTC'))).toBe('2026-12-24T00:00:00.000Z');
  });
  it('takes an explicit offset as it is, and refuses impossible dates', () => {
    expect(iso(instantOf('2026-12-24T18:00:00+05:30', 'Europe/Berlin'))).toBe('2026-12-24T12:30:00.000Z');
    expect(instantOf('2026-02-30T10:00', 'UTC')).toBeNull();
    expect(instantOf('next friday', 'UTC')).toBeNull();
  });
});

describe('windowState', () => {
  const fixed = { start: '2026-12-20T18:00', end: '2027-01-04T09:00', zone: 'Europe/Berlin' };

  it('fixed dates: before, inside (end inclusive of start, exclusive of end), after', () => {
    const start = Date.parse('2026-12-20T17:00:00Z');
    const end = Date.parse('2027-01-04T08:00:00Z');
    expect(windowState(fixed, start - 1)).toEqual({ inside: false, start: null, end: null, nextStart: start });
    expect(windowState(fixed, start)).toEqual({ inside: true, start, end, nextStart: null });
    expect(windowState(fixed, end - 1)).toMatchObject({ inside: true, end });
    expect(windowState(fixed, end)).toEqual({ inside: false, start: null, end: null, nextStart: null });
  });

  it('cron + duration: a weekend freeze from Friday 18:00 Berlin time for 63 hours', () => {
    const weekend = { cron: '0 18 * * FRI', duration: '63h', zone: 'Europe/Berlin' };
    // Friday 2026-11-20 18:00 CET = 17:00 UTC; ends Monday 09:00 CET = 08:00 UTC.
    const friday = Date.parse('2026-11-20T17:00:00Z');
    expect(windowState(weekend, friday - 1)).toMatchObject({ inside: false, nextStart: friday });
    const sunday = windowState(weekend, Date.parse('2026-11-22T12:00:00Z'));
    expect(sunday).toMatchObject({ inside: true, start: friday, end: friday + 63 * H });
    expect(iso(sunday.nextStart)).toBe('2026-11-27T17:00:00.000Z');
    expect(windowState(weekend, friday + 63 * H)).toMatchObject({ inside: false });
  });

  it('cron + duration across DST: the start follows the zone, the duration is elapsed time', () => {
    const weekend = { cron: '0 18 * * FRI', duration: '63h', zone: 'Europe/Berlin' };
    // Summer time ends on Sunday 2026-10-25: Friday 23 Oct 18:00 is CEST (16:00 UTC) ...
    const before = windowState(weekend, Date.parse('2026-10-24T00:00:00Z'));
    expect(iso(before.start)).toBe('2026-10-23T16:00:00.000Z');
    expect(iso(before.end)).toBe('2026-10-26T07:00:00.000Z');
    // ... and the next Friday's 18:00 is CET (17:00 UTC).
    expect(iso(before.nextStart)).toBe('2026-10-30T17:00:00.000Z');
    // New York springs forward on Sunday 2026-03-08: 22:00 Saturday EST is 03:00 UTC, 22:00 Sunday EDT 02:00 UTC.
    const nightly = { cron: '0 22 * * *', duration: '2h', zone: 'America/New_York' };
    const saturday = windowState(nightly, Date.parse('2026-03-08T03:30:00Z'));
    expect(saturday).toMatchObject({ inside: true });
    expect(iso(saturday.end)).toBe('2026-03-08T05:00:00.000Z');
    expect(iso(saturday.nextStart)).toBe('2026-03-09T02:00:00.000Z');
  });

  it('merges back-to-back occurrences when the duration outlasts the period', () => {
    const daily = { cron: '0 0 * * *', duration: '36h', zone: 'UTC' };
    const state = windowState(daily, Date.parse('2026-05-01T12:00:00Z'));
    expect(state.inside).toBe(true);
    // Every day's window overlaps the next: one long freeze, cut at the chain bound rather than looping forever.
    expect(state.end!).toBeGreaterThan(Date.parse('2026-05-02T12:00:00Z'));
  });
});

const RUNBOOK: RunbookFacts = {
  id: 'rb-1',
  name: 'Restart Pods',
  tags: ['prod'],
  categories: [],
  isService: false,
  requiresApproval: false,
};

describe('freezes in the policy file', () => {
  const policy = parsePolicy(
    `
approvers: { users: [U0LEAD] }
freezes:
  - name: Year end
    start: 2026-12-20T18:00
    end: 2027-01-04T09:00
    zone: Europe/Berlin
    runbooks: { tags: [prod] }
  - name: Ops channel nights
    cron: "0 22 * * *"
    duration: 8h
    channels: [C0OPS]
  - name: Contractors
    start: 2026-01-01T00:00Z
    end: 2027-01-01T00:00Z
    groups: [S0CONTRACT]
    breakGlass: { users: [U0SEC] }
`,
    'policy.yaml',
  );
  const at = Date.parse('2026-12-24T12:00:00Z');
  const scope = (over: Partial<{ userId: string | null; groups: string[] | null; channels: string[] }> = {}) => ({
    userId: 'U1',
    groups: [] as string[] | null,
    channels: ['C0DEV'],
    ...over,
  });

  it('covers by runbook, channel and group, the first window in file order', () => {
    expect(policy.freezeAt(scope(), RUNBOOK, at)?.name).toBe('Year end');
    expect(policy.freezeAt(scope(), { ...RUNBOOK, tags: [] }, at)).toBeNull();
    const night = Date.parse('2026-11-10T23:00:00Z');
    expect(policy.freezeAt(scope({ channels: ['C0OPS'] }), { ...RUNBOOK, tags: [] }, night)?.name).toBe(
      'Ops channel nights',
    );
    expect(policy.freezeAt(scope(), { ...RUNBOOK, tags: [] }, night)).toBeNull();
    expect(policy.freezeAt(scope({ groups: ['S0CONTRACT'] }), { ...RUNBOOK, tags: [] }, night)?.name).toBe(
      'Contractors',
    );
    // Groups not known (a schedule's owner Slack could not be asked about): a group window covers them.
    expect(policy.freezeAt(scope({ groups: null }), { ...RUNBOOK, tags: [] }, night)?.name).toBe('Contractors');
  });

  it('says the name and the end in the person zone', () => {
    const freeze = policy.freezeAt(scope(), RUNBOOK, at)!;
    expect(freeze.end).toBe(Date.parse('2027-01-04T08:00:00Z'));
    expect(freezeSentence('Restart Pods', freeze, 'America/New_York')).toContain(
      'the change freeze “Year end” is on until Mon 4 Jan 03:00 EST',
    );
    expect(freezeSentence('Restart Pods', freeze, null)).toContain('until Mon 4 Jan 08:00 GMT');
  });

  it('lets the window’s break-glass people, else the approvers, break it', () => {
    const yearEnd = policy.freezeAt(scope(), RUNBOOK, at)!;
    const who = (userId: string) => ({ userId, groups: [], channelId: 'C0DEV' });
    expect(policy.mayBreakFreeze(who('U0LEAD'), RUNBOOK, yearEnd).allowed).toBe(true);
    const refused = policy.mayBreakFreeze(who('U1'), RUNBOOK, yearEnd);
    expect(refused).toMatchObject({ allowed: false });
    expect(!refused.allowed && refused.message).toContain('Year end');
    const contractors = policy.freezeAt(
      scope({ groups: ['S0CONTRACT'] }),
      { ...RUNBOOK, tags: [] },
      at + 365 * 24 * H,
    )!;
    expect(contractors).toBeNull();
    const c = policy.freezeAt(
      scope({ groups: ['S0CONTRACT'] }),
      { ...RUNBOOK, tags: [] },
      Date.parse('2026-06-01T00:00:00Z'),
    )!;
    expect(policy.mayBreakFreeze(who('U0SEC'), RUNBOOK, c).allowed).toBe(true);
    expect(policy.mayBreakFreeze(who('U0LEAD'), RUNBOOK, c).allowed).toBe(false);
  });

  it('reports every mistake in a window with its place', () => {
    const bad = () =>
      parsePolicy(
        `
freezes:
  - name: both
    start: 2026-12-20T18:00
    end: 2026-12-19T18:00
  - name: neither
    zone: Mars/Olympus
  - name: cron
    cron: "0 25 * * *"
    duration: forever
`,
        'policy.yaml',
      );
    expect(bad).toThrow(PolicyError);
    try {
      bad();
    } catch (err) {
      const problems = (err as PolicyError).problems.join('\n');
      expect(problems).toContain('freezes.0.end: must be after start');
      expect(problems).toContain('freezes.1.zone: must be an IANA time zone');
      expect(problems).toContain('freezes.1: give either start and end, or cron and duration');
      expect(problems).toContain('freezes.2.cron');
      expect(problems).toContain('freezes.2.duration: must be a duration');
    }
  });
});

describe('the deploy example policy', () => {
  it('is valid and its weekend freeze covers a Saturday in the production channel only', async () => {
    const { readFile } = await import('node:fs/promises');
    const file = path.resolve(import.meta.dirname, '../../../deploy/policy.example.yaml');
    const policy = parsePolicy(await readFile(file, 'utf8'), file);
    const saturday = Date.parse('2026-11-28T12:00:00Z');
    const prod = { userId: 'U1', groups: [], channels: ['C0PROD'] };
    expect(policy.freezeAt(prod, { ...RUNBOOK, tags: [] }, saturday)?.name).toBe('Weekend freeze');
    expect(policy.freezeAt({ ...prod, channels: ['C0DEV'] }, { ...RUNBOOK, tags: [] }, saturday)).toBeNull();
  });
});
