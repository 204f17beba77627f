// Which parts of a params value are secret, at any depth. A value position is secret when ANY schema
// that may apply to it declares a secret (type "secret", format "password", "x-secret": true or
// "writeOnly": true). The schemas that may apply are found by following, together with the value:
// local $ref (JSON pointers into the root, `$defs`, `definitions`), every branch of
// anyOf/oneOf/allOf (and if/then/else), `properties`, `patternProperties`, `additionalProperties`,
// `items`, `prefixItems` (and draft-4 tuple `items` / `additionalItems`). Taking every branch is
// deliberate: a value that matches the non-secret branch of `anyOf: [{format: password}, …]` is still
// hidden, because masking too much costs a dot, and masking too little leaks a credential.
// A position no schema describes (a runbook without an input schema, a key the schema does not
// name) is judged by its key: names like password, token, secret, api_key, private_key or
// credential are secret (SECRET_KEY), at any depth.
import { isRecord } from './input-schema.ts';

/** Key names that hold credentials: what decides where no schema says anything. */
export const SECRET_KEY =
  /pass(word|wd|phrase)?$|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?(id|key)/i;

type Schema = Record<string, unknown>;

/** Deeper than this, a value is hidden whole when any schema on the way is secret-bearing. */
const MAX_DEPTH = 32;
/** $ref hops followed for one value position (cycles and chains). */
const MAX_REF_HOPS = 64;

/** Whether a schema node itself declares its value secret. */
export function declaresSecret(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return (
    types.includes('secret') || schema.format === 'password' || schema['x-secret'] === true || schema.writeOnly === true
  );
}

/** Resolves a local JSON pointer (`#`, `#/$defs/x`, `#/definitions/x`, `#/properties/a~1b`). */
function resolvePointer(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isRecord(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/**
 * Every schema that may apply where `schemas` apply: references followed, combinator branches
 * expanded. A $ref that cannot be resolved (remote, broken) adds nothing.
 */
function expand(root: Schema, schemas: readonly unknown[]): Schema[] {
  const out: Schema[] = [];
  const seen = new Set<unknown>();
  const stack = [...schemas];
  let hops = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isRecord(node) || seen.has(node)) continue;
    seen.add(node);
    out.push(node);
    if (typeof node.$ref === 'string' && hops++ < MAX_REF_HOPS) stack.push(resolvePointer(root, node.$ref));
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      const branches = node[key];
      if (Array.isArray(branches)) stack.push(...branches);
    }
    for (const key of ['then', 'else']) if (isRecord(node[key])) stack.push(node[key]);
  }
  return out;
}

function patternMatches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key);
  } catch {
    // A pattern we cannot read might match: assume it does.
    return true;
  }
}

/** Schemas that may apply to `value[key]` given the schemas that apply to `value`. */
function propertySchemas(schemas: readonly Schema[], key: string): unknown[] {
  const out: unknown[] = [];
  for (const s of schemas) {
    let named = false;
    if (isRecord(s.properties) && Object.hasOwn(s.properties, key)) {
      out.push(s.properties[key]);
      named = true;
    }
    if (isRecord(s.patternProperties)) {
      for (const [pattern, sub] of Object.entries(s.patternProperties)) {
        if (patternMatches(pattern, key)) {
          out.push(sub);
          named = true;
        }
      }
    }
    if (!named && isRecord(s.additionalProperties)) out.push(s.additionalProperties);
  }
  return out;
}

/** Schemas that may apply to `value[index]` of an array. */
function itemSchemas(schemas: readonly Schema[], index: number): unknown[] {
  const out: unknown[] = [];
  for (const s of schemas) {
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : null;
    if (prefix && index < prefix.length) {
      out.push(prefix[index]);
      continue;
    }
    if (isRecord(s.items)) out.push(s.items);
    else if (Array.isArray(s.items) && isRecord(s.additionalItems)) out.push(s.additionalItems);
  }
  return out;
}

/** Whether anything at or below these schemas is declared secret (bounded walk). */
function bearsSecret(root: Schema, schemas: readonly unknown[]): boolean {
  const seen = new Set<unknown>();
  const stack = [...schemas];
  while (stack.length > 0 && seen.size < 10_000) {
    const node = stack.pop();
    if (!isRecord(node) || seen.has(node)) continue;
    seen.add(node);
    if (declaresSecret(node)) return true;
    if (typeof node.$ref === 'string') stack.push(resolvePointer(root, node.$ref));
    for (const value of Object.values(node)) {
      if (isRecord(value)) stack.push(value);
      else if (Array.isArray(value)) stack.push(...value);
    }
  }
  return false;
}

/** Whether the value of `root.properties[name]` (or any schema for that key) is itself secret. */
export function isSecretProperty(root: Schema, name: string): boolean {
  return expand(root, propertySchemas(expand(root, [root]), name)).some(declaresSecret);
}

export const REMOVE: unique symbol = Symbol('remove secret');
export type SecretAction = string | typeof REMOVE;

function setOwnKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of `value` with every secret position replaced by `action` (a mask string), or left out
 * (REMOVE). `root` is the whole input schema, for $ref.
 */
export function hideBySchema(root: Schema, schemas: readonly unknown[], value: unknown, action: SecretAction): unknown {
  return walk(root, schemas, value, action, 0);
}

/** A copy of `value` with every entry under a credential-like key (SECRET_KEY) hidden, at any depth. */
export function hideByKeyName(value: unknown, action: SecretAction, depth = 0): unknown {
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    return value.map((item) => hideByKeyName(item, action, depth + 1)).filter((item) => item !== REMOVE);
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const hidden = SECRET_KEY.test(key) ? action : hideByKeyName(item, action, depth + 1);
    if (hidden !== REMOVE) setOwnKey(out, key, hidden);
  }
  return out;
}

function walk(root: Schema, schemas: readonly unknown[], value: unknown, action: SecretAction, depth: number): unknown {
  if (value === undefined) return value;
  // Nothing describes this position: its key names decide.
  if (schemas.length === 0) return hideByKeyName(value, action, depth);
  const applicable = expand(root, schemas);
  if (applicable.some(declaresSecret)) return action;
  if (depth >= MAX_DEPTH) return bearsSecret(root, applicable) ? action : value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const hidden = walk(root, itemSchemas(applicable, i), item, action, depth + 1);
      if (hidden !== REMOVE) out.push(hidden);
    });
    return out;
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const described = propertySchemas(applicable, key);
      const hidden =
        described.length === 0 && SECRET_KEY.test(key) ? action : walk(root, described, item, action, depth + 1);
      if (hidden !== REMOVE) setOwnKey(out, key, hidden);
    }
    return out;
  }
  // A scalar where the schema expects a structure with secrets inside (a JSON text, a wrong type):
  // it may hold them, so it is hidden whole.
  return bearsSecret(root, applicable) ? action : value;
}
