// One name per concept across layers: a use case of src/runs/ and the Slack code that renders it never
// share a name (no `approveRequest` in two folders), and src/slack/ never renames what it imports from
// src/runs/ (`import { saveSchedule as saveScheduleCase }` is the sign of two things with one name).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, SRC } from './source-imports.ts';

/** Names of the functions, classes and constants a file exports (types aside). */
function exportedNames(text: string): string[] {
  return [...text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/gm)].map(
    (m) => m[1]!,
  );
}

/** `a as b` renames in the imports of `text` from a path under `from` (relative to `file`). */
function renamedImports(file: string, text: string, from: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s+(?!type\b)\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = path.resolve(path.dirname(file), m[2]!);
    if (!target.startsWith(from + path.sep)) continue;
    for (const part of m[1]!.split(',')) {
      const rename = /^\s*(?!type\s)([\w$]+)\s+as\s+([\w$]+)\s*$/.exec(part);
      if (rename) found.push(`${rename[1]} as ${rename[2]}`);
    }
  }
  return found;
}

const RUNS = path.join(SRC, 'runs');
const SLACK = path.join(SRC, 'slack');
const exportsUnder = (dir: string) =>
  new Map(filesUnder(dir).flatMap((file) => exportedNames(readFileSync(file, 'utf8')).map((n) => [n, file] as const)));

describe('one name per concept', () => {
  it('no name is exported by both src/runs/ and src/slack/', () => {
    const runs = exportsUnder(RUNS);
    const shared = [...exportsUnder(SLACK)]
      .filter(([name]) => runs.has(name))
      .map(([name, file]) => `${name}: ${path.relative(SRC, runs.get(name)!)} and ${path.relative(SRC, file)}`);
    expect(shared).toEqual([]);
  });

  it('src/slack/ never renames an import from src/runs/', () => {
    const renamed = filesUnder(SLACK).flatMap((file) =>
      renamedImports(file, readFileSync(file, 'utf8'), RUNS).map((r) => `${path.relative(SRC, file)}: ${r}`),
    );
    expect(renamed).toEqual([]);
  });

  it('finds both (the checks can fail)', () => {
    expect(exportedNames('export async function saveSchedule() {}\nexport const A = 1;\nexport type T = 1;')).toEqual([
      'saveSchedule',
      'A',
    ]);
    const file = path.join(SLACK, 'schedules', 'x.ts');
    const text =
      "import { a, saveSchedule as saveScheduleCase } from '../../runs/schedules.ts';\nimport { b as c } from '../kit/x.ts';";
    expect(renamedImports(file, text, RUNS)).toEqual(['saveSchedule as saveScheduleCase']);
  });
});
