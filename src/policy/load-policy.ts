// Reads POLICY_FILE (YAML or JSON) once at start-up and validates it; every problem is reported
// at once with its place in the file, and the bot refuses to start on an invalid policy.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isNode, LineCounter, parseDocument, parse as parseYaml } from 'yaml';
import { Policy, PolicyFile } from './policy.ts';

export class PolicyError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`Invalid policy file ${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PolicyError';
    this.problems = problems;
  }
}

export function parsePolicy(text: string, file: string): Policy {
  let raw: unknown;
  try {
    raw = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new PolicyError(file, [`not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`]);
  }
  const result = PolicyFile.safeParse(raw ?? {});
  if (!result.success) {
    const where = placeFinder(text, raw);
    throw new PolicyError(
      file,
      result.error.issues.map((i) => {
        // An unknown key is found at its own line, not its object's.
        const key = i.code === 'unrecognized_keys' ? i.keys.slice(0, 1) : [];
        const at = where([...(i.path as Array<string | number>), ...key]);
        return `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}${at ? ` (${at})` : ''}`;
      }),
    );
  }
  return new Policy(result.data, path.basename(file));
}

const KIND: Record<string, string> = { rules: 'rule', approvals: 'approval rule', freezes: 'freeze' };

/**
 * Where a problem is, for people: the rule (by its name) and the line, e.g. `rule “eu may not run”, line 7`.
 * The line is the nearest node of the path the YAML (or JSON) text has.
 */
function placeFinder(text: string, raw: unknown): (at: ReadonlyArray<string | number>) => string | null {
  const lines = new LineCounter();
  let doc: ReturnType<typeof parseDocument> | null = null;
  try {
    doc = parseDocument(text, { lineCounter: lines });
  } catch {
    doc = null;
  }
  return (at) => {
    const parts: string[] = [];
    const [list, index] = at;
    if (typeof list === 'string' && KIND[list] && typeof index === 'number') {
      const name = ((raw as Record<string, unknown[]>)[list]?.[index] as { name?: unknown } | undefined)?.name;
      parts.push(typeof name === 'string' && name ? `${KIND[list]} “${name}”` : `${KIND[list]} ${index + 1}`);
    }
    for (let p = [...at]; doc; p = p.slice(0, -1)) {
      const node = doc.getIn(p, true);
      if (isNode(node) && node.range) {
        parts.push(`line ${lines.linePos(node.range[0]).line}`);
        break;
      }
      if (p.length === 0) break;
    }
    return parts.length ? parts.join(', ') : null;
  };
}

/** No file → the documented default policy. */
export async function loadPolicy(file: string | null): Promise<Policy> {
  if (!file) return Policy.permissive();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new PolicyError(file, [`cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  return parsePolicy(text, file);
}

/**
 * Every user group the policy names (the only ones whose members are looked up); applied for an
 * installation (forInstallation), not those of rules naming only other teams (not readable with its token).
 */
export function policyGroups(policy: Policy): string[] {
  const f = policy.file;
  const here = <R extends { teams?: string[] | undefined }>(rules: R[] | undefined): R[] =>
    (rules ?? []).filter((rule) => policy.mayApplyHere(rule.teams));
  const groups = new Set<string>();
  const lists = [
    ...here(f.rules).map((rule) => rule.groups),
    ...here(f.approvals).map((rule) => rule.approvers?.groups),
    ...here(f.approvals).map((rule) => rule.quorum?.oneFromEach),
    f.approvers?.groups,
    f.quorum?.oneFromEach,
    ...here(f.freezes).map((w) => w.groups),
    ...here(f.freezes).map((w) => w.breakGlass?.groups),
  ];
  for (const list of lists) for (const group of list ?? []) groups.add(group);
  return [...groups];
}

/**
 * The users the policy names as approvers or break-glass people (those its surfaces may name), of rules
 * that may apply to the installation it is applied for. Many workspaces: each is named only if Slack puts
 * them in it (Policy.usersHere).
 */
export function policyApproverUsers(policy: Policy): string[] {
  const f = policy.file;
  const here = <R extends { teams?: string[] | undefined }>(rules: R[] | undefined): R[] =>
    (rules ?? []).filter((rule) => policy.mayApplyHere(rule.teams));
  const lists = [
    f.approvers?.users,
    ...here(f.approvals).map((rule) => rule.approvers?.users),
    ...here(f.freezes).map((w) => w.breakGlass?.users),
  ];
  return [...new Set(lists.flatMap((list) => list ?? []))];
}
