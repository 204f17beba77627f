// Reads POLICY_FILE (YAML or JSON) once at start-up and validates it; every problem is reported
// at once with its place in the file, and the bot refuses to start on an invalid policy.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
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
    throw new PolicyError(
      file,
      result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`),
    );
  }
  return new Policy(result.data, path.basename(file));
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

/** Every user group the policy names (the only ones whose members are looked up). */
export function policyGroups(policy: Policy): string[] {
  const f = policy.file;
  const groups = new Set<string>();
  const lists = [
    ...(f.rules ?? []).map((rule) => rule.groups),
    ...(f.approvals ?? []).map((rule) => rule.approvers?.groups),
    ...(f.approvals ?? []).map((rule) => rule.quorum?.oneFromEach),
    f.approvers?.groups,
    f.quorum?.oneFromEach,
    ...(f.freezes ?? []).map((w) => w.groups),
    ...(f.freezes ?? []).map((w) => w.breakGlass?.groups),
  ];
  for (const list of lists) for (const group of list ?? []) groups.add(group);
  return [...groups];
}
