// The Runbook API's `filter` grammar is not published: a list may send one only as a hint, through
// `listMatching` (src/api/filter-hint.ts), which re-checks every row and copes with a server that
// ignores, misreads or rejects it. This walks every source file that lists runbooks, schedules or
// executions and fails on one that builds a `filter` itself (the way the executions list and run
// recovery once did).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, SRC } from './source-imports.ts';

/** Folders that implement the API (client, emulator, local Slack) rather than use it. */
const IMPLEMENTERS = ['api', 'emulator', 'sandbox'].map((dir) => path.join(SRC, dir) + path.sep);
const LISTS = /\b(?:executions|workflows|schedules)\s*\.\s*(?:list|iterate)\s*\(/;
/** `{ filter }`, `filter: …` — not Slack's `filter: { include: … }` of a conversations select. */
const FILTER_PROPERTY = /\{\s*filter\s*\}|\bfilter\s*:(?!\s*\{)/;

function filterBuilders(files: Array<{ file: string; text: string }>): string[] {
  return files
    .filter(({ file }) => !IMPLEMENTERS.some((dir) => file.startsWith(dir)))
    .filter(({ text }) => LISTS.test(text) && FILTER_PROPERTY.test(text) && !text.includes('listMatching('))
    .map(({ file }) => path.relative(SRC, file));
}

describe('list filters are hints', () => {
  it('no module sends a filter to a Runbook API list except through listMatching', () => {
    const files = filesUnder(SRC).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    expect(filterBuilders(files)).toEqual([]);
  });

  it('would catch a list that sends its own filter and trusts the answer', () => {
    const file = path.join(SRC, 'runs', 'example.ts');
    const text = `const page = await deps.api.executions.list({ ...(filter ? { filter } : {}), pageSize: 100 });`;
    expect(filterBuilders([{ file, text }])).toEqual(['runs/example.ts']);
    const slackSelect = `await api.executions.list({ pageSize: 8 }); const el = { filter: { include: ['public'] } };`;
    expect(filterBuilders([{ file, text: slackSelect }])).toEqual([]);
  });
});
