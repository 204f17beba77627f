// Reads src/ as text for the architecture tests: its files and the relative imports of each (static
// `import … from` and `export … from`, type-only included: a type import is still a dependency a
// reader has to follow; side-effect `import './x.ts'` and dynamic `import('./x.ts')` too).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const SRC = path.resolve(import.meta.dirname, '../../../src');

/** Every file under `dir` (all kinds), as absolute paths. */
export function allFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? allFilesUnder(full) : [full];
  });
}

/** The TypeScript and JavaScript sources under `dir`. */
export function filesUnder(dir: string): string[] {
  return allFilesUnder(dir).filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'));
}

/** Relative import targets of one file, as absolute paths. */
export function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(path.resolve(path.dirname(file), match[1]!));
  }
  return found;
}

/** file → its relative import targets, for every source under src/. */
export function importGraph(files: string[] = filesUnder(SRC)): Map<string, string[]> {
  return new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
}
