// Secret parameters are sent to the API but never shown again: not in messages, logs, audit entries
// or a re-run's prefill. Callers pass params through maskSecrets (or stripSecrets for drafts) before
// rendering, storing or logging them. What counts as secret, at any depth, is decided in
// secret-schema.ts: type "secret", format "password", "x-secret": true, "writeOnly": true, through
// $ref, anyOf/oneOf/allOf, items, prefixItems, additionalProperties and patternProperties — the same
// for the form's fields and for values typed into the JSON fallback. Where no schema says anything
// (no schema at all, or a key it does not name), credential-like key names decide (SECRET_KEY).
import type { FormSpec } from './input-schema.ts';
import { hideByKeyName, hideBySchema, isSecretProperty, REMOVE, type SecretAction } from './secret-schema.ts';

export const SECRET_MASK = '••••••';

function rootSchema(spec: FormSpec): Record<string, unknown> | null {
  return spec.kind === 'empty' ? null : spec.schema;
}

function hideSecrets(spec: FormSpec, params: Record<string, unknown>, action: SecretAction): Record<string, unknown> {
  const root = rootSchema(spec);
  // No schema: keys named like credentials (password, api_key, …) are the secrets.
  if (root === null) return hideByKeyName(params, action) as Record<string, unknown>;
  return hideBySchema(root, [root], params, action) as Record<string, unknown>;
}

/** Names of the top-level parameters whose values are secret (at the top level itself). */
export function secretFieldNames(spec: FormSpec): string[] {
  const root = rootSchema(spec);
  if (root === null) return [];
  const names = spec.kind === 'fields' ? spec.fields.map((f) => f.name) : Object.keys(propertiesOf(root));
  return names.filter((name) => isSecretProperty(root, name));
}

function propertiesOf(root: Record<string, unknown>): Record<string, unknown> {
  const properties = root.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? (properties as Record<string, unknown>)
    : {};
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
