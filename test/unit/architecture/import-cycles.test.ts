// Imports run one way: in every folder of src/, no cycle between its subfolders and files (the
// top-level folders and src/slack/'s subfolders are also checked on their own, as before). Read from
// the source text by ./source-imports.ts.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, importGraph, importsOf, SRC } from './source-imports.ts';

type Graph = Map<string, Map<string, string>>;

/** Folder → folder edges (with one example import for the message), grouping files by `groupOf`. */
function folderGraph(files: string[], groupOf: (file: string) => string | null): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = groupOf(file);
    if (!from) continue;
    for (const target of imports.get(file) ?? []) {
      const to = groupOf(target);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
    }
  }
  return graph;
}

/** The cycles a depth-first search meets (at least one whenever there is one), each as its edges' example imports. */
function cyclesOf(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const done = new Set<string>(); // fully walked: every cycle through it is already found
  const walk = (node: string, stack: string[]) => {
    if (done.has(node)) return;
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
    done.add(node);
  };
  for (const node of graph.keys()) walk(node, []);
  return cycles;
}

const files = filesUnder(SRC);
const imports = importGraph(files);

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

  // Every folder under src/ (src/ itself included), its children — subfolders and files alike — as
  // the nodes: no two folders, no folder and a file, no two files of one folder import each other.
  it('no cycle between the folders and files of any folder under src/', () => {
    const folders = [...new Set(files.map((file) => path.dirname(file)))].flatMap((dir) => {
      const parents: string[] = [];
      for (let at = dir; at.startsWith(SRC); at = path.dirname(at)) parents.push(at);
      return parents;
    });
    const cycles = [...new Set(folders)].flatMap((folder) => {
      const child = (file: string) => {
        const parts = path.relative(folder, file).split(path.sep);
        return parts[0]!.startsWith('..') ? null : parts[0]!;
      };
      return cyclesOf(folderGraph(files, child)).map(
        (cycle) => `${path.relative(SRC, folder) || 'src'}: ${cycle.join(', ')}`,
      );
    });
    expect(cycles).toEqual([]);
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
    const later = "import './side.ts';\nconst { t } = await import('../ops/t.ts');\nconst c = await import('pkg');";
    expect(importsOf('/r/a/x.ts', later)).toEqual(['/r/a/side.ts', '/r/ops/t.ts']);
  });
});
