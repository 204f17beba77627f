import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { type Emulator, ManualClock, startEmulator } from '../../../src/emulator/server.ts';
import {
  chooseBulkDiscovery,
  discoverFinished,
  estimatePages,
  isPastOldest,
  isTerminal,
} from '../../../src/watch/bulk-discovery.ts';

describe('chooseBulkDiscovery', () => {
  it('checks one by one while the due checks fit in ~2 s of budget', () => {
    expect(chooseBulkDiscovery({ dueCount: 40, watchedCount: 5_000, requestsPerSecond: 20, lastPages: null })).toBe(
      false,
    );
  });

  it('lists in bulk when the due checks exceed the budget and listing is cheaper', () => {
    expect(chooseBulkDiscovery({ dueCount: 64, watchedCount: 500, requestsPerSecond: 20, lastPages: null })).toBe(true);
  });

  it('keeps checking one by one when listing back to the oldest watch costs more pages than checks', () => {
    // Last listing needed 80 pages to reach the oldest watch (old long-running runs): 64 gets are cheaper.
    expect(chooseBulkDiscovery({ dueCount: 64, watchedCount: 500, requestsPerSecond: 20, lastPages: 80 })).toBe(false);
    expect(estimatePages(250, null)).toBe(3);
    expect(estimatePages(250, 7)).toBe(7);
  });
});

describe('isPastOldest / isTerminal', () => {
  const oldest = Date.parse('2026-01-01T12:00:00Z');
  it('stops only at executions created before the oldest watch minus skew', () => {
    expect(isPastOldest('2026-01-01T11:59:00Z', oldest, 0)).toBe(true);
    expect(isPastOldest('2026-01-01T11:59:00Z', oldest, 120_000)).toBe(false);
    expect(isPastOldest('2026-01-01T12:00:01Z', oldest, 0)).toBe(false);
    expect(isPastOldest(null, oldest, 0)).toBe(false);
  });
  it('treats succeeded/failed, and unknown statuses with an end time, as terminal', () => {
    expect(isTerminal({ executionStatus: 'EXECUTION_STATUS_SUCCEEDED', endTime: null })).toBe(true);
    expect(isTerminal({ executionStatus: 'EXECUTION_STATUS_FAILED', endTime: null })).toBe(true);
    expect(isTerminal({ executionStatus: 'EXECUTION_STATUS_IN_PROGRESS', endTime: '2026-01-01T00:00:00Z' })).toBe(
      false,
    );
    expect(isTerminal({ executionStatus: 'unknown', endTime: '2026-01-01T00:00:00Z' })).toBe(true);
    expect(isTerminal({ executionStatus: 'unknown', endTime: null })).toBe(false);
  });
});

describe('discoverFinished against the emulator', () => {
  const KEY = 'bulk-key-0123456789';
  let emulator: Emulator;
  let api: RunbookApi;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-01T08:00:00Z'));
    emulator = await startEmulator({ port: 0, apiKey: KEY, clock });
    api = createRunbookApi({ baseUrl: emulator.url, apiKey: KEY, timeoutMs: 5_000, maxRetries: 0 });
  });
  afterAll(async () => {
    await api.close();
    await emulator.close();
  });

  it('lists newest first, finds the finished watched runs, and stops past the oldest watch', async () => {
    const runbook = (await api.workflows.list({ isService: true })).items[0]!;
    const watchedFrom = clock.now();
    const quick: string[] = [];
    const slow: string[] = [];
    for (let i = 0; i < 150; i++) {
      const long = i % 3 === 0;
      const { executionIds } = await api.workflows.run(runbook.id, {
        proxyId: 'proxy-dev',
        params: { simulate_duration_seconds: long ? 3_600 : 1 },
      });
      (long ? slow : quick).push(executionIds[0]!);
      clock.advance(1_000);
    }
    clock.advance(10_000);
    const before = emulator.state.requests.count('GET /v1alpha1/executions');
    const result = await discoverFinished(api, {
      watched: new Set([...quick, ...slow]),
      oldestWatchCreatedAt: watchedFrom,
      skewMs: 0,
      call: (fn) => fn(),
    });
    expect(new Set(result.finished)).toEqual(new Set(quick));
    expect(result.statuses.get(slow[0]!)).toBe('EXECUTION_STATUS_IN_PROGRESS');
    expect(result.statuses.size).toBe(150);
    // 150 watched executions newest first = 2 pages; the seeded history further back is never read.
    expect(result.pages).toBe(2);
    expect(emulator.state.requests.count('GET /v1alpha1/executions') - before).toBe(2);
  });

  it('hands each page’s finished watched runs over as that page is read, before the next page is asked for', async () => {
    const runbook = (await api.workflows.list({ isService: true })).items[0]!;
    const watchedFrom = clock.now();
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) {
      const { executionIds } = await api.workflows.run(runbook.id, {
        proxyId: 'proxy-dev',
        // Every fourth run keeps running; the others end within a second.
        params: { simulate_duration_seconds: i % 4 === 0 ? 3_600 : 1 },
      });
      ids.push(executionIds[0]!);
      clock.advance(1_000);
    }
    clock.advance(10_000);
    const listed = () => emulator.state.requests.count('GET /v1alpha1/executions');
    const before = listed();
    const handed: Array<{ ids: string[]; pagesRead: number }> = [];
    const result = await discoverFinished(api, {
      watched: new Set(ids),
      oldestWatchCreatedAt: watchedFrom,
      skewMs: 0,
      call: (fn) => fn(),
      onFinished: async (finished) => {
        handed.push({ ids: finished.map((e) => e.id), pagesRead: listed() - before });
      },
    });
    // 250 watched runs newest first: 3 pages, each handing over its own finished runs when it was read.
    expect(result.pages).toBe(3);
    expect(handed.map((h) => h.pagesRead)).toEqual([1, 2, 3]);
    const newestFirst = [...ids].reverse();
    for (const [i, h] of handed.entries()) {
      const page = newestFirst.slice(i * 100, (i + 1) * 100);
      expect(new Set(h.ids)).toEqual(new Set(page.filter((id) => ids.indexOf(id) % 4 !== 0)));
    }
    // Every finished run handed over once, and each handed run is finished as listed.
    const all = handed.flatMap((h) => h.ids);
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(all)).toEqual(new Set(result.finished));
  });

  it('stops on the first page whose executions are older than the oldest watch', async () => {
    const result = await discoverFinished(api, {
      watched: new Set(['not-listed-anywhere']),
      oldestWatchCreatedAt: clock.now(),
      skewMs: 0,
      call: (fn) => fn(),
    });
    expect(result.pages).toBe(1);
    expect(result.finished).toEqual([]);
  });
});
