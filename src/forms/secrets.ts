// Secret parameters (type "secret", format "password" or "x-secret": true) are sent to the API
// but never shown again: not in messages, logs, audit entries or a re-run's prefill. Callers pass
// params through maskSecrets before rendering or logging them.
import type { FormSpec } from './input-schema.ts';
import { isRecord, isSecretSchema, setOwn } from './input-schema.ts';

export const SECRET_MASK = '••••••';

function rootProperties(spec: FormSpec): Record<string, unknown> {
  if (spec.kind === 'empty' || spec.schema === null) return {};
  return isRecord(spec.schema.properties) ? spec.schema.properties : {};
}

/** Names of the top-level parameters whose values are secret. */
export function secretFieldNames(spec: FormSpec): string[] {
  if (spec.kind === 'fields') return spec.fields.filter((f) => f.secret).map((f) => f.name);
  return Object.entries(rootProperties(spec))
    .filter(([, schema]) => isSecretSchema(schema))
    .map(([name]) => name);
}

/** What becomes of a secret value: shown as the mask, or left out altogether. */
const REMOVE = Symbol('remove secret');
type SecretAction = typeof SECRET_MASK | typeof REMOVE;

/** Replaces (or removes) values of secret properties, following nested objects and arrays declared in the schema. */
function hideValue(schema: unknown, value: unknown, depth: number, action: SecretAction): unknown {
  if (value === undefined || !isRecord(schema) || depth > 20) return value;
  if (isSecretSchema(schema)) return action;
  if (Array.isArray(value) && isRecord(schema.items)) {
    return value.map((v) => hideValue(schema.items, v, depth + 1, action)).filter((v) => v !== REMOVE);
  }
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const hidden = Object.hasOwn(properties, key) ? hideValue(properties[key], v, depth + 1, action) : v;
      if (hidden !== REMOVE) setOwn(out, key, hidden);
    }
    return out;
  }
  return value;
}

function hideSecrets(spec: FormSpec, params: Record<string, unknown>, action: SecretAction): Record<string, unknown> {
  if (spec.kind === 'empty' || spec.schema === null) return { ...params };
  if (spec.kind === 'fields') {
    const bySchema = new Map(spec.fields.map((f) => [f.name, f]));
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(params)) {
      const field = bySchema.get(key);
      const hidden = field === undefined ? value : field.secret ? action : hideValue(field.schema, value, 0, action);
      if (hidden !== REMOVE) setOwn(out, key, hidden);
    }
    return out;
  }
  return hideValue({ properties: rootProperties(spec) }, params, 0, action) as Record<string, unknown>;
}

/** A copy of params with every secret value replaced by '••••••'; the input is not changed. */
export function maskSecrets(spec: FormSpec, params: Record<string, unknown>): Record<string, unknown> {
  return hideSecrets(spec, params, SECRET_MASK);
}

/**
 * A copy of params without any secret value, nested ones included: what a draft, a re-run or an
 * edit form may keep and prefill. Secrets are always typed again.
 */
export function stripSecrets(spec: FormSpec, params: Record<string, unknown>): Record<string, unknown> {
  return hideSecrets(spec, params, REMOVE);
}
