// The params a run sends are written the same whichever path gathered them: schema order, then the rest.
import { describe, expect, it } from 'vitest';
import { parseInputSchema } from '../../../src/forms/input-schema.ts';
import { isRunEntry, RUN_ENTRIES } from '../../../src/runs/run-entry.ts';
import { inSchemaOrder, runParams, typedRunParams } from '../../../src/runs/run-params.ts';

const spec = parseInputSchema(
  JSON.stringify({
    type: 'object',
    properties: {
      namespace: { type: 'string', default: 'default' },
      deployment: { type: 'string' },
      replicas: { type: 'integer', default: 3 },
    },
    required: ['namespace', 'deployment', 'replicas'],
  }),
);

describe('inSchemaOrder', () => {
  it('orders by the schema, keeps keys it does not describe after them, and changes no value', () => {
    const ordered = inSchemaOrder(spec, { extra: 1, replicas: 2, deployment: 'web', namespace: 'ns' });
    expect(Object.keys(ordered)).toEqual(['namespace', 'deployment', 'replicas', 'extra']);
    expect(ordered).toEqual({ extra: 1, replicas: 2, deployment: 'web', namespace: 'ns' });
  });

  it('makes a line, a JSON object and a form-ordered object the same JSON', () => {
    const line = typedRunParams(spec, { deployment: 'web' }, null);
    const json = runParams(spec, { deployment: 'web' });
    expect(line.ok && json.ok).toBe(true);
    if (!line.ok || !json.ok) return;
    const form = { namespace: 'default', deployment: 'web', replicas: 3 };
    const written = [line.params, json.params, form].map((p) => JSON.stringify(inSchemaOrder(spec, p)));
    expect(new Set(written).size).toBe(1);
  });

  it('leaves params alone when the runbook has no field list', () => {
    const params = { b: 1, a: 2 };
    expect(Object.keys(inSchemaOrder(parseInputSchema(''), params))).toEqual(['b', 'a']);
  });
});

describe('RunEntry', () => {
  it('names every entry point once and refuses anything else', () => {
    expect(new Set(RUN_ENTRIES).size).toBe(7);
    for (const entry of RUN_ENTRIES) expect(isRunEntry(entry)).toBe(true);
    for (const other of ['', 'Form', 'api', null, 3, { v: 'form' }]) expect(isRunEntry(other)).toBe(false);
  });
});
