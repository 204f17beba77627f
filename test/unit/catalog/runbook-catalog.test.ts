import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunbookApi } from '../../../src/api/client.ts';
import type { RunbookApi } from '../../../src/api/runbook-api.ts';
import { categoryLabel, normalizeCategory, RunbookCatalog } from '../../../src/catalog/runbook-catalog.ts';
import { type Emulator, startEmulator } from '../../../src/emulator/server.ts';

let emulator: Emulator;
let api: RunbookApi;
let catalog: RunbookCatalog;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKey: 'k' });
  api = createRunbookApi({ baseUrl: emulator.url, apiKey: 'k' });
  catalog = new RunbookCatalog({ api });
});
afterAll(async () => {
  await api.close();
  await emulator.close();
});

describe('RunbookCatalog', () => {
  it('loads service and custom runbooks and knows which is which', async () => {
    const all = await catalog.all();
    expect(all.length).toBeGreaterThanOrEqual(50);
    const custom = all.find((r) => r.name === 'Restart Checkout Workers');
    const service = all.find((r) => r.name === 'Postgres Vacuum Analyze');
    expect(catalog.isService(custom!.id)).toBe(false);
    expect(catalog.isService(service!.id)).toBe(true);
  });

  it('resolves by id, by exact name in any case, and by a unique set of words', async () => {
    const target = (await catalog.all()).find((r) => r.name === 'Postgres Vacuum Analyze')!;
    expect(await catalog.resolve(target.id)).toEqual({ kind: 'match', runbook: target });
    expect(await catalog.resolve('postgres VACUUM analyze')).toEqual({ kind: 'match', runbook: target });
    expect(await catalog.resolve('vacuum')).toEqual({ kind: 'match', runbook: target });
  });

  it('answers several matches with candidates and no match with the closest names', async () => {
    const several = await catalog.resolve('kubernetes');
    expect(several.kind).toBe('several');
    if (several.kind === 'several') expect(several.candidates.length).toBeGreaterThan(1);
    const none = await catalog.resolve('postgress vacum analyse');
    expect(none.kind).toBe('none');
    if (none.kind === 'none') expect(none.suggestions[0]?.name).toBe('Postgres Vacuum Analyze');
  });

  it('searches for typeahead with prefix matches first', async () => {
    const found = await catalog.search('find');
    expect(found.length).toBeGreaterThan(3);
    expect(found[0]!.name.toLowerCase().startsWith('find')).toBe(true);
    expect((await catalog.search('zzzz-nothing')).length).toBe(0);
  });

  it('browses pages filtered by words, scope and category', async () => {
    const first = await catalog.browse({ words: '', scope: 'all', category: null, page: 0, pageSize: 8 });
    expect(first.items.length).toBe(8);
    expect(first.pageCount).toBe(Math.ceil(first.total / 8));
    expect(first.categories.length).toBeGreaterThan(3);
    const sre = await catalog.browse({ words: '', scope: 'service', category: 'sre', page: 0, pageSize: 100 });
    expect(sre.category).toBe('CATEGORY_TYPE_SRE');
    expect(sre.items.every((r) => r.categories.includes('CATEGORY_TYPE_SRE'))).toBe(true);
    const custom = await catalog.browse({ words: '', scope: 'custom', category: null, page: 0, pageSize: 100 });
    expect(custom.items.every((r) => catalog.isService(r.id) === false)).toBe(true);
    const beyond = await catalog.browse({ words: '', scope: 'all', category: null, page: 999, pageSize: 8 });
    expect(beyond.page).toBe(first.pageCount - 1);
  });

  it('category counts follow a search: how many of the matches are in each category', async () => {
    const restart = await catalog.browse({ words: 'restart', scope: 'all', category: null, page: 0, pageSize: 100 });
    const counted = Object.fromEntries(restart.categories.map((c) => [c.name, Number(c.count)]));
    for (const [name, count] of Object.entries(counted)) {
      expect(restart.items.filter((r) => r.categories.includes(name))).toHaveLength(count);
    }
    expect(Object.values(counted).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(restart.categories.every((c) => !c.count.includes('/'))).toBe(true);
  });

  it('says which category is unknown instead of listing none "in" it', async () => {
    const nosuch = await catalog.browse({ words: '', scope: 'all', category: 'nosuch', page: 0, pageSize: 8 });
    expect(nosuch.unknownCategory).toBe('nosuch');
    expect(nosuch.total).toBe(0);
    const sre = await catalog.browse({ words: '', scope: 'all', category: 'sre', page: 0, pageSize: 8 });
    expect(sre.unknownCategory).toBeNull();
  });

  it('suggests the closest names when a search finds nothing', async () => {
    const typo = await catalog.browse({ words: 'postgress', scope: 'all', category: null, page: 0, pageSize: 8 });
    expect(typo.total).toBe(0);
    expect(typo.suggestions?.map((r) => r.name)).toContain('Postgres Vacuum Analyze');
    const hidden = await catalog.browse({
      words: 'postgress',
      scope: 'all',
      category: null,
      page: 0,
      pageSize: 8,
      visible: (r) => !r.name.startsWith('Postgres'),
    });
    expect(hidden.suggestions?.map((r) => r.name)).not.toContain('Postgres Vacuum Analyze');
  });
});

describe('category names', () => {
  it('normalises loose spellings and labels enum names', () => {
    expect(normalizeCategory('cost opt', ['CATEGORY_TYPE_COST_OPT'])).toBe('CATEGORY_TYPE_COST_OPT');
    expect(normalizeCategory('CATEGORY_TYPE_SRE', [])).toBe('CATEGORY_TYPE_SRE');
    expect(categoryLabel('CATEGORY_TYPE_COST_OPT')).toBe('Cost opt');
    expect(categoryLabel('CATEGORY_TYPE_IAM')).toBe('IAM');
  });
});
