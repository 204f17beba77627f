// Secrets of an execution, wherever it shows: its output, failure reason and inputs. The secret values
// are taken from the execution's own `inputs` (the JSON string the API returns), matched against its
// runbook's input schema (credential-like key names where there is none), every time the execution is
// read — so cards posted after a restart or by another replica, and runs started outside Slack, are
// masked the same, and nothing secret is ever kept in our store. `withMaskedExecutions` wraps the API
// client once (runtime.ts): every execution any part of the bot reads (watcher, subscriptions, status,
// Full output, Find, the Workflow Builder step's outputs, mentions) comes with its output and reason
// already masked. `inputs` stays as the API sent it (run recovery compares it); it is shown only through
// maskExecutionInputs. How echoes are found (base64, percent-encoding, the length threshold):
// src/forms/secret-values.ts.
import type { RunbookApi } from '../api/runbook-api.ts';
import type { Execution } from '../api/schemas.ts';
import { type FormSpec, parseInputSchema } from '../forms/input-schema.ts';
import { type CardInputs, labelInputs } from '../forms/labelled-inputs.ts';
import { maskSecretsAndEchoes, secretTextMasker, secretValuesOf } from '../forms/secret-values.ts';
import { SECRET_MASK } from '../forms/secrets.ts';
import { type ExecutionInputs, parseExecutionInputs, SECRET_KEY } from './execution-facts.ts';

interface HasSchema {
  inputSchema: string;
}

/**
 * The runbooks an execution's runbook name may stand for (names need not be unique); [] when none
 * has it; null when that cannot be told now (the catalog cannot be read): then every input is secret.
 */
export type RunbooksNamed = (name: string) => Promise<readonly HasSchema[] | null>;

/** The secret values of an execution's inputs (inputs that are not a JSON object count whole). */
export function executionSecrets(inputs: ExecutionInputs, runbooks: readonly HasSchema[] | null): string[] {
  if (inputs.kind === 'text') return secretValuesOf(null, { text: inputs.text });
  const specs: FormSpec[] | null = runbooks ? runbooks.map((r) => parseInputSchema(r.inputSchema)) : null;
  return secretValuesOf(specs, inputs.values);
}

/**
 * The error of an API call that carried `params`, with every echo of their secret values masked in its
 * message (and its cause's), in place: a server that quotes the value it refused must not put a
 * password into the sentence a person reads, the audit trail or the log. Returns the same error.
 */
export function maskErrorSecrets<E>(error: E, spec: FormSpec, params: Record<string, unknown>): E {
  const secrets = secretValuesOf([spec], params);
  if (secrets.length === 0) return error;
  const mask = secretTextMasker(secrets);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    current.message = mask(current.message);
    current = current.cause;
  }
  return error;
}

/** The execution with every echo of `secrets` masked in its output and failure reason. */
export function maskExecution(execution: Execution, secrets: readonly string[]): Execution {
  if (secrets.length === 0) return execution;
  const mask = secretTextMasker(secrets);
  return { ...execution, output: mask(execution.output), reason: mask(execution.reason) };
}

/** Inputs as shown to people: secret positions masked, and any echo of a secret value in the others. */
export function maskExecutionInputs(inputs: ExecutionInputs, runbook: HasSchema | null): ExecutionInputs {
  // Text that is not a JSON object: nothing says which part is secret, so none of it is shown.
  if (inputs.kind === 'text') return { kind: 'text', text: inputs.text.trim() === '' ? inputs.text : SECRET_MASK };
  const spec = parseInputSchema(runbook?.inputSchema ?? '');
  const masked = maskSecretsAndEchoes(spec, inputs.values);
  for (const key of Object.keys(masked)) if (SECRET_KEY.test(key)) masked[key] = SECRET_MASK;
  return { kind: 'object', values: masked };
}

/** An execution's inputs as a card shows them: masked, under the schema's titles when the runbook is known. */
export type LabelledExecutionInputs = { kind: 'object'; values: CardInputs } | { kind: 'text'; text: string };

/**
 * Inputs as people read them, the way the run form shows them: masked (maskExecutionInputs) and, when the
 * runbook is known, under its schema's titles in schema order ("Cluster", not "Context").
 */
export function labelExecutionInputs(inputs: ExecutionInputs, runbook: HasSchema | null): LabelledExecutionInputs {
  const masked = maskExecutionInputs(inputs, runbook);
  if (masked.kind === 'text' || !runbook) return masked;
  return { kind: 'object', values: labelInputs(parseInputSchema(runbook.inputSchema), masked.values) };
}

/** The API client with every execution it returns masked (output and reason), in lists and single reads. */
export function withMaskedExecutions(api: RunbookApi, runbooksNamed: RunbooksNamed): RunbookApi {
  const mask = async (execution: Execution): Promise<Execution> => {
    if (execution.output === '' && execution.reason === '') return execution;
    const inputs = parseExecutionInputs(execution.inputs);
    if (inputs.kind === 'object' && Object.keys(inputs.values).length === 0) return execution;
    const runbooks = inputs.kind === 'object' ? await runbooksNamed(execution.workflowName).catch(() => null) : [];
    return maskExecution(execution, executionSecrets(inputs, runbooks));
  };
  const { executions } = api;
  return {
    ...api,
    executions: {
      async list(params, options) {
        const page = await executions.list(params, options);
        return { ...page, items: await Promise.all(page.items.map(mask)) };
      },
      async *iterate(params, options) {
        for await (const execution of executions.iterate(params, options)) yield await mask(execution);
      },
      async get(id, params, options) {
        return mask(await executions.get(id, params, options));
      },
    },
  };
}
