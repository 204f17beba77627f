// No rule outside the gate: every decision about who may do what is made in src/runs/ (or src/policy/
// below it). Read from the source text: no file under src/slack/ imports src/policy/ for anything but
// types, re-exports it, or reaches the policy or the approvals store through its deps.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, SRC } from './source-imports.ts';

const POLICY = path.join(SRC, 'policy');

/** The code without comments (strings are kept: a rule in a string is not a call). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
}

const REACHES: Array<[RegExp, string]> = [
  [/\.\s*policy\b/, 'reaches the policy (`….policy`)'],
  [/\[\s*['"`]policy['"`]\s*\]/, "reaches the policy (`['policy']`)"],
  [/\{[^}]*\bpolicy\b[^}]*\}\s*=/, 'takes the policy out of its deps'],
  [/\{[^=;{}]*\{[^=;{}]*\bpolicy\b[^=;{}]*\}[^=;{}]*\}\s*=(?![=>])/, 'takes the policy out of its deps (nested)'],
  [/\bstore\s*\.\s*approvals\b/, 'reaches the approvals store'],
  [/\.\s*approvals\b/, 'reaches the approvals store (`….approvals`)'],
  [/\[\s*['"`]approvals['"`]\s*\]/, "reaches the approvals store (`['approvals']`)"],
  [/\{[^}]*\bapprovals\b[^}]*\}\s*=\s*[\w.]*store\b/, 'takes the approvals store out of its deps'],
  [
    /\{[^=;{}]*\{[^=;{}]*\bapprovals\b[^=;{}]*\}[^=;{}]*\}\s*=(?![=>])/,
    'takes the approvals store out of its deps (nested)',
  ],
];

/** What a file under src/slack/ does that only src/runs/ may do. */
function violationsOf(file: string, text: string): string[] {
  const found: string[] = [];
  const code = withoutComments(text);
  const statements = /(?:^|\n)\s*(import|export)(\s+type)?\s([^;]*?)from\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of code.matchAll(statements)) {
    const target = path.resolve(path.dirname(file), m[4]!);
    if (target !== POLICY && !target.startsWith(`${POLICY}${path.sep}`)) continue;
    if (m[1] === 'export') found.push(`re-exports ${m[4]}`);
    else if (!m[2]) {
      // `import { type A, type B }` is types only too; anything else is a value.
      const names = m[3]!
        .replace(/[{}\s]/g, '')
        .split(',')
        .filter(Boolean);
      if (!names.every((n) => n.startsWith('type'))) found.push(`imports values from ${m[4]}`);
    }
  }
  for (const [pattern, what] of REACHES) if (pattern.test(code)) found.push(what);
  return found;
}

describe('the checker', () => {
  const file = path.join(SRC, 'slack', 'x', 'y.ts');
  it.each([
    "import { describeApprovers } from '../../policy/policy.ts';",
    "import { type ApprovalNeed, describeApprovers } from '../../policy/policy.ts';",
    "export { decodeAsk } from '../../policy/approvals.ts';",
    "export type { Quorum } from '../../policy/quorum.ts';",
    'const need = deps.access.policy.approvalFor(facts);',
    'const { policy } = ctx.deps.access;',
    'const a = await deps.access.store.approvals.get(id);',
    'const { approvals } = deps.access.store;',
    "const p = deps.access['policy'];",
    'const { access: { policy } } = ctx.deps;',
    'const { store: { approvals } } = deps.access;',
    'const s = deps.access.store;\nawait s.approvals.decide(id);',
  ])('finds %s', (line) => {
    expect(violationsOf(file, line)).not.toEqual([]);
  });
  it.each([
    "import type { Approval } from '../../store/store.ts';",
    "import type { RunRateLimit } from '../../policy/run-rate-limit.ts';",
    "import { type A, type B } from '../../policy/policy.ts';",
    '// deps.access.policy is only for src/runs/',
    "const text = 'the policy file';",
    'const store = deps.access.store.aliases;',
    'const channel = deps.access.approvalsChannel;',
    'const { access: { identity } } = ctx.deps;',
  ])('lets %s be', (line) => {
    expect(violationsOf(file, line)).toEqual([]);
  });
});

describe('src/runs/', () => {
  // The Slack layer imports src/runs/ freely: a value of src/policy/ re-exported there would be a way round.
  it('re-exports nothing of src/policy/ but types', () => {
    const found = filesUnder(path.join(SRC, 'runs')).flatMap((f) => {
      const code = withoutComments(readFileSync(f, 'utf8'));
      return [...code.matchAll(/(?:^|\n)\s*export\s+(?!type\b)(?:\*|\{([^}]*)\})\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
        .filter((m) => path.resolve(path.dirname(f), m[2]!).startsWith(`${POLICY}${path.sep}`))
        .filter((m) => m[1] === undefined || !m[1].split(',').every((n) => n.trim().startsWith('type') || !n.trim()))
        .map((m) => `${path.relative(SRC, f)}: ${m[0].trim()}`);
    });
    expect(found).toEqual([]);
  });
});

describe('src/slack/', () => {
  const files = filesUnder(path.join(SRC, 'slack'));
  it('has files to read', () => {
    expect(files.length).toBeGreaterThan(20);
  });
  it('decides nothing itself: no policy but types, no approvals store', () => {
    const found = files.flatMap((f) =>
      violationsOf(f, readFileSync(f, 'utf8')).map((v) => `${path.relative(SRC, f)}: ${v}`),
    );
    expect(found).toEqual([]);
  });
});
