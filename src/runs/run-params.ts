// The params a run gets from what the person gave, the same on every path: the schema's usable defaults
// (what the run form prefills) fill every input that was not given, then the whole is validated with the
// form's rules. So `run X a=1 --now`, an alias, a Workflow Builder step and the form left at its defaults
// send the same params, and every confirmation shows them.
import { usableDefaults } from '../forms/defaults.ts';
import type { FormSpec } from '../forms/input-schema.ts';
import { type TypedValues, typeValues, validateObject } from '../forms/typed-values.ts';

/** Values typed on a line (`key=value`), with the schema's defaults for the rest; `timeZone` as typeValues. */
export function typedRunParams(
  spec: FormSpec,
  typed: Readonly<Record<string, string>>,
  timeZone: string | null,
): TypedValues {
  return typeValues(spec, typed, usableDefaults(spec), timeZone);
}

/** An already-typed object (a workflow step's JSON inputs, a confirmation's draft), with the defaults for the rest. */
export function runParams(spec: FormSpec, given: Record<string, unknown>): TypedValues {
  return validateObject(spec, { ...usableDefaults(spec), ...given });
}

/**
 * The params in the schema's field order, any others after them as given: the same values make the same
 * JSON (sent to the API, audited) whichever path gathered them and in whatever order.
 */
export function inSchemaOrder(spec: FormSpec, params: Record<string, unknown>): Record<string, unknown> {
  if (spec.kind !== 'fields') return params;
  const known = spec.fields.map((f) => f.name).filter((name) => Object.hasOwn(params, name));
  const rest = Object.keys(params).filter((name) => !known.includes(name));
  return Object.fromEntries([...known, ...rest].map((name) => [name, params[name]]));
}
