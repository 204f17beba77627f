// Public API of forms: input schema (JSON Schema) ⇄ Block Kit inputs ⇄ params. Pure, no I/O.
export { enumLabel, enumOptions } from './enum-options.ts';
export { buildFormBlocks } from './form-blocks.ts';
export type { FieldKind, FieldSpec, FormSpec } from './input-schema.ts';
export {
  FALLBACK_BLOCK_ID,
  FIELD_ACTION_ID,
  FIELD_BLOCK_PREFIX,
  findField,
  humanizeName,
  MAX_FIELDS,
  parseInputSchema,
} from './input-schema.ts';
export { readFormValues } from './read-form-values.ts';
export { maskSecrets, SECRET_MASK, secretFieldNames } from './secrets.ts';
export type { FormResult } from './validate-params.ts';
export { validateParams } from './validate-params.ts';
