// Imports run one way: no cycle between the top-level folders of src/, nor between the subfolders of
// src/slack/. Read from the source text (static `import … from` and `export … from`, type-only included:
// a type import is still a dependency a reader has to follow).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Relative import targets of one file, as absolute paths. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const match of text.matchAll(pattern)) found.push(path.resolve(path.dirname(file), match[1]!));
  return found;
}

type Graph = Map<string, Map<string, string>>;

/** Folder → folder edges (with one example import for the message), grouping files by `groupOf`. */
function folderGraph(files: string[], groupOf: (file: string) => string | null): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = groupOf(file);
    if (!from) continue;
    for (const target of importsOf(file, readFileSync(file, 'utf8'))) {
      const to = groupOf(target);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    }
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as its edges' example imports. */
function cyclesOf(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const walk = (node: string, stack: string[]) => {
    const at = stack.indexOf(node);
    if (at >= 0) {
      const loop = [...stack.slice(at), node];
      const key = [...loop.slice(0, -1)].sort().join('>');
      if (!seen.has(key)) {
        seen.add(key);
        cycles.push(loop.slice(0, -1).map((n, i) => graph.get(n)!.get(loop[i + 1]!)!));
      }
      return;
    }
    for (const next of graph.get(node)?.keys() ?? []) walk(next, [...stack, node]);
  };
  for (const node of graph.keys()) walk(node, []);
  return cycles;
}

const files = filesUnder(SRC);

describe('imports run one way', () => {
  it('no cycle between the top-level folders of src/', () => {
    const topFolder = (file: string) => {
      const parts = path.relative(SRC, file).split(path.sep);
      return parts.length > 1 ? parts[0]! : null; // files directly in src/ (main.ts, runtime.ts) compose everything
    };
    expect(cyclesOf(folderGraph(files, topFolder))).toEqual([]);
  });

  it('no cycle between the subfolders of src/slack/', () => {
    const slack = path.join(SRC, 'slack');
    const subFolder = (file: string) => {
      const parts = path.relative(slack, file).split(path.sep);
      return parts.length > 1 && !parts[0]!.startsWith('..') ? parts[0]! : null;
    };
    expect(cyclesOf(folderGraph(files, subFolder))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph: Graph = new Map([
      ['a', new Map([['b', 'a/x.ts → b/y.ts']])],
      ['b', new Map([['c', 'b/y.ts → c/z.ts']])],
      ['c', new Map([['a', 'c/z.ts → a/x.ts']])],
    ]);
    expect(cyclesOf(graph)).toEqual([['a/x.ts → b/y.ts', 'b/y.ts → c/z.ts', 'c/z.ts → a/x.ts']]);
    expect(importsOf('/r/a/x.ts', "import type { T } from '../b/y.ts';\nexport { u } from './u.ts';")).toEqual([
      '/r/b/y.ts',
      '/r/a/u.ts',
    ]);
  });
});
