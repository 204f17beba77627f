// Which default each input starts with. The service's own schemas often store a default JSON-encoded
// (`"\"Add\""` for an enum member, `'["abc"]'` for a list), so a default is decoded when the raw value
// does not fit and the decoded one does (for fields that is done once in input-schema.ts); and a
// default is only prefilled when the schema accepts it, so a form never opens holding a value its own
// submit would refuse (an empty-string default on a number, an object missing a required key).
import type { FormSpec } from './input-schema.ts';
import { decodeJson, isRecord, isSecretSchema, resolveSchema, setOwn } from './input-schema.ts';
import { propertiesWithErrors } from './validate-params.ts';

/** Candidate values per property, best first; the first one the schema accepts wins. */
function candidatesOf(spec: FormSpec): Map<string, unknown[]> {
  const candidates = new Map<string, unknown[]>();
  if (spec.kind === 'fields') {
    for (const field of spec.fields) {
      if (!field.secret && 'default' in field) candidates.set(field.name, [field.default]);
    }
  } else if (spec.kind === 'fallback' && spec.schema && isRecord(spec.schema.properties)) {
    const root = spec.schema;
    for (const [name, property] of Object.entries(spec.schema.properties)) {
      if (!isRecord(property) || !('default' in property) || isSecretSchema(resolveSchema(property, root))) continue;
      const raw = property.default;
      const decoded = typeof raw === 'string' ? decodeJson(raw) : { ok: false as const };
      candidates.set(name, decoded.ok ? [raw, decoded.value] : [raw]);
    }
  }
  return candidates;
}

/**
 * The defaults a form may be prefilled with, secrets never among them. When the schema cannot be
 * compiled here (the service still checks it), the first candidate of each property is kept.
 */
export function usableDefaults(spec: FormSpec): Record<string, unknown> {
  const candidates = candidatesOf(spec);
  const chosen = new Map<string, number>([...candidates.keys()].map((name) => [name, 0]));
  const schema = spec.kind === 'empty' ? null : spec.schema;
  // Each pass moves every refused property on to its next candidate or drops it, until the schema
  // accepts what is left; every pass makes progress, so this ends.
  let progressed = schema !== null;
  while (progressed && chosen.size > 0 && schema) {
    const values: Record<string, unknown> = {};
    for (const [name, index] of chosen) setOwn(values, name, candidates.get(name)![index]);
    const refused = propertiesWithErrors(schema, values);
    progressed = false;
    for (const name of refused ?? []) {
      const index = chosen.get(name);
      if (index === undefined) continue;
      if (index + 1 < candidates.get(name)!.length) chosen.set(name, index + 1);
      else chosen.delete(name);
      progressed = true;
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name, index] of chosen) setOwn(out, name, candidates.get(name)![index]);
  return out;
}
