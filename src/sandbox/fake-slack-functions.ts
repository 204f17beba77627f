// Workflow Builder custom steps in the fake Slack: a step run starts with `startFunctionExecution`
// (what Slack does when a workflow reaches the app's step; the caller sends the function_executed
// event it returns), and ends once with functions.completeSuccess or functions.completeError,
// answered with the errors Slack documents for those methods.
import { randomBytes } from 'node:crypto';
import { fail, type MethodArgs, type MethodHandler, str } from './fake-slack-context.ts';
import { mintSlackId } from './fake-slack-ids.ts';
import type { FakeFunctionExecution, FakeSlackState } from './fake-slack-state.ts';

export interface FunctionParameter {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
  name?: string;
}

/** A function as the app manifest declares it (`functions.<callback_id>`). */
export interface FunctionDefinition {
  title: string;
  description?: string;
  input_parameters: Record<string, FunctionParameter>;
  output_parameters: Record<string, FunctionParameter>;
}

export interface StartedFunction {
  execution: FakeFunctionExecution;
  /** The inner `function_executed` event, exactly as Slack sends it (wrap it in an event_callback). */
  event: Record<string, unknown>;
}

const parameterList = (params: Record<string, FunctionParameter>) =>
  Object.entries(params).map(([name, p]) => ({ ...p, name }));

/**
 * The value Slack gives an input of type slack#/types/interactivity: who started the workflow (only Slack
 * can produce it; a workflow's author can map it but not forge it) and a pointer for opening views.
 */
export function interactivityOf(userId: string): Record<string, unknown> {
  return {
    interactor: { id: userId, secret: randomBytes(24).toString('base64url') },
    interactivity_pointer: `${Date.now()}.${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(16).toString('hex')}`,
  };
}

export function startFunctionExecution(
  state: FakeSlackState,
  p: {
    callbackId: string;
    definition: FunctionDefinition;
    inputs: Record<string, unknown>;
    /** The person who started the workflow; absent or null: nobody (a scheduled workflow). */
    interactor?: string | null;
    nowMs: number;
  },
): StartedFunction {
  const id = mintSlackId('Fx', 11);
  // Slack, not the workflow, fills every interactivity input: with the person who started it, or nothing.
  const inputs = { ...p.inputs };
  for (const [name, param] of Object.entries(p.definition.input_parameters)) {
    if (param.type !== 'slack#/types/interactivity') continue;
    if (p.interactor) inputs[name] = interactivityOf(p.interactor);
    else delete inputs[name];
  }
  const execution: FakeFunctionExecution = {
    id,
    workflowExecutionId: mintSlackId('Wx', 11),
    callbackId: p.callbackId,
    inputs,
    botAccessToken: `xwfp-${randomBytes(4).readUInt32BE()}-${randomBytes(16).toString('hex')}`,
    state: 'running',
    requiredOutputs: Object.entries(p.definition.output_parameters)
      .filter(([, o]) => o.is_required)
      .map(([name]) => name),
    startedAt: p.nowMs,
  };
  state.functionExecutions[id] = execution;
  const seconds = Math.floor(p.nowMs / 1000);
  const event = {
    type: 'function_executed',
    function: {
      id: mintSlackId('Fn', 11),
      callback_id: p.callbackId,
      title: p.definition.title,
      description: p.definition.description ?? '',
      type: 'app',
      input_parameters: parameterList(p.definition.input_parameters),
      output_parameters: parameterList(p.definition.output_parameters),
      app_id: state.appId,
      date_created: seconds,
      date_updated: seconds,
      date_deleted: 0,
    },
    inputs,
    function_execution_id: id,
    workflow_execution_id: execution.workflowExecutionId,
    event_ts: (p.nowMs / 1000).toFixed(6),
    bot_access_token: execution.botAccessToken,
  };
  return { execution, event };
}

/** Whether `token` is the bot_access_token of a step run still going (Slack accepts it for Web API calls). */
export function isFunctionToken(state: FakeSlackState, token: string): boolean {
  return Object.values(state.functionExecutions).some((e) => e.botAccessToken === token && e.state === 'running');
}

function runningExecution(state: FakeSlackState, args: MethodArgs) {
  const id = str(args, 'function_execution_id');
  if (!id)
    return fail('invalid_arguments', {
      response_metadata: { messages: ['[ERROR] missing required field: function_execution_id'] },
    });
  const execution = state.functionExecutions[id];
  if (!execution) return fail('function_execution_not_found');
  if (execution.state !== 'running') return fail('execution_not_in_running_state');
  return execution;
}

function objectArg(args: MethodArgs, key: string): Record<string, unknown> | undefined {
  let value = args[key];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const completeSuccess: MethodHandler = (ctx, args) => {
  const execution = runningExecution(ctx.state, args);
  if ('ok' in execution) return execution;
  const outputs = objectArg(args, 'outputs');
  if (!outputs)
    return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] outputs must be an object'] } });
  const missing = execution.requiredOutputs.filter((name) => outputs[name] === undefined || outputs[name] === null);
  if (missing.length > 0) {
    return fail('parameter_validation_failed', {
      errors: missing.map((name) => ({ parameter: name, error: 'missing required output' })),
    });
  }
  execution.state = 'completed';
  execution.outputs = outputs;
  execution.endedAt = ctx.now();
  ctx.emit('message', { kind: 'function', id: execution.id, execution });
  return { ok: true };
};

const completeError: MethodHandler = (ctx, args) => {
  const execution = runningExecution(ctx.state, args);
  if ('ok' in execution) return execution;
  const error = str(args, 'error');
  if (!error)
    return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: error'] } });
  execution.state = 'failed';
  execution.error = error;
  execution.endedAt = ctx.now();
  ctx.emit('message', { kind: 'function', id: execution.id, execution });
  return { ok: true };
};

export const functionMethods: Record<string, MethodHandler> = {
  'functions.completeSuccess': completeSuccess,
  'functions.completeError': completeError,
};
