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

/** Masks values of secret properties, following nested objects and arrays declared in the schema. */
function maskValue(schema: unknown, value: unknown, depth: number): unknown {
  if (value === undefined || !isRecord(schema) || depth > 20) return value;
  if (isSecretSchema(schema)) return SECRET_MASK;
  if (Array.isArray(value) && isRecord(schema.items)) return value.map((v) => maskValue(schema.items, v, depth + 1));
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      setOwn(out, key, Object.hasOwn(properties, key) ? maskValue(properties[key], v, depth + 1) : v);
    }
    return out;
  }
  return value;
}

/** A copy of params with every secret value replaced by '••••••'; the input is not changed. */
export function maskSecrets(spec: FormSpec, params: Record<string, unknown>): Record<string, unknown> {
  if (spec.kind === 'empty' || spec.schema === null) return { ...params };
  if (spec.kind === 'fields') {
    const bySchema = new Map(spec.fields.map((f) => [f.name, f]));
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(params)) {
      const field = bySchema.get(key);
      setOwn(out, key, field === undefined ? value : field.secret ? SECRET_MASK : maskValue(field.schema, value, 0));
    }
    return out;
  }
  return maskValue({ properties: rootProperties(spec) }, params, 0) as Record<string, unknown>;
}
