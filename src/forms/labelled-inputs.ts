// Inputs as people read them: under their schema titles, in schema order, secrets masked.
// `labelInputs` turns a runbook's schema and params into that list once (when a run starts, or an
// approval is asked for); it is stored with the watch and the approval request, and cards render it.
// A plain object (an older stored summary, or a run started outside Slack) still reads, with humanised
// keys. Pure; no Slack here (rendering is in src/slack/kit/input-summary.ts).
import { type FormSpec, humanizeName, isSecretSchema } from './input-schema.ts';
import { SECRET_KEY } from './secret-schema.ts';
import { maskSecretsAndEchoes } from './secret-values.ts';
import { SECRET_MASK, secretFieldNames } from './secrets.ts';

export interface LabelledInput {
  /** Parameter name in the schema. */
  key: string;
  /** The schema's title (or the humanised name). */
  label: string;
  /** Already masked when secret. */
  value: unknown;
  secret?: boolean;
}

/** What a card accepts as inputs: the labelled list, or a plain (masked) params object. */
export type CardInputs = Record<string, unknown> | readonly LabelledInput[];

/** The params of a run under their titles, schema order first, secrets and their echoes masked (nested ones too). */
export function labelInputs(spec: FormSpec, params: Record<string, unknown>): LabelledInput[] {
  const masked = maskSecretsAndEchoes(spec, params);
  const secrets = new Set(secretFieldNames(spec));
  const out: LabelledInput[] = [];
  const seen = new Set<string>();
  if (spec.kind === 'fields') {
    for (const field of spec.fields) {
      if (!Object.hasOwn(masked, field.name)) continue;
      seen.add(field.name);
      const secret = field.secret || isSecretSchema(field.schema);
      out.push({ key: field.name, label: field.title, value: secret ? SECRET_MASK : masked[field.name], secret });
    }
  }
  for (const [key, value] of Object.entries(masked)) {
    if (seen.has(key)) continue;
    // A key no schema field describes is secret when its name says so (maskSecretsAndEchoes hid its value).
    const secret = secrets.has(key) || (SECRET_KEY.test(key) && masked[key] === SECRET_MASK);
    out.push({ key, label: humanizeName(key) || key, value: secret ? SECRET_MASK : value, secret });
  }
  return out;
}

function isLabelledList(inputs: CardInputs): inputs is readonly LabelledInput[] {
  return Array.isArray(inputs);
}

/** Either shape as the labelled list (a plain object gets humanised keys as labels). */
export function toLabelledInputs(inputs: CardInputs | unknown): LabelledInput[] {
  if (Array.isArray(inputs)) {
    return inputs
      .filter((i): i is LabelledInput => typeof i === 'object' && i !== null && typeof i.key === 'string')
      .map((i) => ({
        key: i.key,
        label: typeof i.label === 'string' && i.label !== '' ? i.label : humanizeName(i.key) || i.key,
        value: i.secret === true ? SECRET_MASK : i.value,
        ...(i.secret === true ? { secret: true } : {}),
      }));
  }
  if (typeof inputs !== 'object' || inputs === null) return [];
  return Object.entries(inputs as Record<string, unknown>).map(([key, value]) => ({
    key,
    label: humanizeName(key) || key,
    value,
  }));
}

export function inputCount(inputs: CardInputs): number {
  return isLabelledList(inputs) ? inputs.length : Object.keys(inputs).length;
}
