// Every file under src/ is named in its folder's README (files directly in src/ in the root README's
// code map), so a reader who opens a folder finds each file's job in one place.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFilesUnder, SRC } from './source-imports.ts';

const ROOT_README = path.resolve(SRC, '../README.md');

/** The README that must name `file`. */
function readmeOf(file: string): string {
  const dir = path.dirname(file);
  return dir === SRC ? ROOT_README : path.join(dir, 'README.md');
}

/** Whether `text` names `fileName` as a whole name (`run.ts` is not named by `run.tsx` or `dry-run.ts`). */
function names(text: string, fileName: string): boolean {
  const escaped = fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w-])`).test(text);
}

/** Files not named in their folder's README (a missing README names nothing), relative to src/. */
function unnamedFiles(files: string[], read: (readme: string) => string | null): string[] {
  return files
    .filter((file) => path.basename(file) !== 'README.md')
    .filter((file) => !names(read(readmeOf(file)) ?? '', path.basename(file)))
    .map((file) => path.relative(SRC, file))
    .sort();
}

const readText = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : null);

describe('folder READMEs', () => {
  it('name every file of their folder', () => {
    expect(unnamedFiles(allFilesUnder(SRC), readText)).toEqual([]);
  });

  it('a file left out, or a folder without a README, is reported', () => {
    const at = (p: string) => path.join(SRC, p);
    const readmes: Record<string, string> = {
      [at('kit/README.md')]: '| `ids.ts` | every action id |\n`post-once.ts`',
      [ROOT_README]: '`src/main.ts` composition root',
    };
    const files = [
      at('kit/ids.ts'),
      at('kit/post-once.ts'),
      at('kit/once.ts'),
      at('new/x.ts'),
      at('main.ts'),
      at('config.ts'),
    ];
    expect(unnamedFiles(files, (readme) => readmes[readme] ?? null)).toEqual(['config.ts', 'kit/once.ts', 'new/x.ts']);
  });
});
