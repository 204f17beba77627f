// The sandbox's Workflow Builder: the custom steps the app declares, read from its own manifest, and
// the inputs a workflow gives the "Run a runbook" step, as Workflow Builder would fill them in.
import { readFileSync } from 'node:fs';
import type { FunctionDefinition } from './fake-slack-functions.ts';

const MANIFEST = new URL('../../manifest/manifest.socket.json', import.meta.url);

let cached: Record<string, FunctionDefinition> | null = null;

/** The app's custom steps by callback_id, as the manifest declares them. */
export function manifestFunctions(): Record<string, FunctionDefinition> {
  if (!cached) {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { functions?: Record<string, FunctionDefinition> };
    cached = manifest.functions ?? {};
  }
  return cached;
}

export function stepDefinition(callbackId: string): FunctionDefinition {
  const definition = manifestFunctions()[callbackId];
  if (!definition) throw new Error(`the manifest declares no step ${callbackId}`);
  return definition;
}

/**
 * Inputs for a step, keeping only the names its definition declares and dropping empty optional
 * ones (Workflow Builder sends no value for an input left blank).
 */
export function stepInputs(definition: FunctionDefinition, given: Record<string, unknown>): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const name of Object.keys(definition.input_parameters)) {
    const value = given[name];
    if (value === undefined || value === null || value === '') continue;
    inputs[name] = value;
  }
  return inputs;
}
