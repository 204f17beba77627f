import type { KnownBlock, ModalView } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { Execution } from '../../../../src/api/schemas.ts';
import {
  buildExecutionNotFound,
  buildExecutionStatus,
  buildOutputModal,
  chunkOutput,
  decodeRerunValue,
  type ExecutionStatusInput,
  MAX_OUTPUT_CHUNKS,
  parseExecutionInputs,
} from '../../../../src/slack/kit/execution-status.ts';
import { ACTIONS, VIEWS } from '../../../../src/slack/kit/ids.ts';
import { assertWithinLimits } from '../../../../src/slack/kit/limits.ts';
import { codePointLength, escapeMrkdwn } from '../../../../src/slack/kit/mrkdwn.ts';

function execution(overrides: Partial<Execution> = {}): Execution {
  return {
    id: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    workflowName: 'Restart Pod',
    createTime: '2026-03-01T10:00:00Z',
    startTime: '2026-03-01T10:00:05Z',
    endTime: '2026-03-01T10:03:17Z',
    duration: '',
    version: '1.0.0',
    executionStatus: 'EXECUTION_STATUS_FAILED',
    inputs: '{"namespace":"prod","pod":"api-1"}',
    output: 'line 1\nline 2\nError: pod not found',
    executor: 'alice@example.com',
    approver: 'bob@example.com',
    reason: 'pod api-1 not found',
    executionType: 'EXECUTION_TYPE_RUNBOOK',
    ...overrides,
  };
}

function statusInput(overrides: Partial<ExecutionStatusInput> = {}): ExecutionStatusInput {
  const e = overrides.execution ?? execution();
  return { execution: e, inputs: parseExecutionInputs(e.inputs), runbookId: 'rb-1', ...overrides };
}

function sectionTexts(blocks: KnownBlock[]): string[] {
  return blocks.flatMap((b) => {
    if (b.type !== 'section') return [];
    return [b.text?.text ?? '', ...(b.fields ?? []).map((f) => f.text)];
  });
}

interface ButtonLike {
  action_id: string;
  value: string;
  text: { text: string };
}

function buttons(blocks: KnownBlock[]): ButtonLike[] {
  const actions = blocks.find((b) => b.type === 'actions') as { elements: ButtonLike[] } | undefined;
  return actions?.elements ?? [];
}

describe('buildExecutionStatus', () => {
  it('shows the runbook, status, people, times, duration, type, version, inputs, reason and output', () => {
    const message = buildExecutionStatus(statusInput());
    assertWithinLimits(message, 'message');
    const text = sectionTexts(message.blocks).join('\n');
    expect(text).toContain(':x: *Restart Pod* failed');
    expect(text).toContain('*Run by*\nalice@example.com');
    expect(text).toContain('*Approved by*\nbob@example.com');
    expect(text).toContain('*Type*\nrunbook');
    expect(text).toContain('*Version*\n1.0.0');
    expect(text).toContain('*Created*\n<!date^1772359200^');
    expect(text).toContain('*Started*\n<!date^1772359205^');
    expect(text).toContain('*Ended*\n<!date^1772359397^');
    expect(text).toContain('*Duration*\n3m 12s');
    expect(text).toContain('*Execution*\n`3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a`');
    expect(text).toContain('*Reason*\npod api-1 not found');
    expect(text).toContain('• *Namespace*: `prod`');
    expect(text).toContain('• *Pod*: `api-1`');
    expect(text).toContain('*Output*\n```\nline 1\nline 2\nError: pod not found\n```');
    expect(message.text).toBe('Restart Pod failed');
  });

  it('leaves out the approver, type and version when the API did not set them', () => {
    const message = buildExecutionStatus(
      statusInput({
        execution: execution({ approver: '', version: '', executionType: 'EXECUTION_TYPE_UNSPECIFIED' }),
      }),
    );
    const text = sectionTexts(message.blocks).join('\n');
    expect(text).not.toContain('Approved by');
    expect(text).not.toContain('*Type*');
    expect(text).not.toContain('*Version*');
  });

  it('escapes every text from the API', () => {
    const nasty = '<!channel> & co';
    const e = execution({
      workflowName: nasty,
      executor: `<@U123> ${nasty}`,
      approver: nasty,
      reason: `<http://evil|click> ${nasty}`,
      version: nasty,
      inputs: JSON.stringify({ [nasty]: nasty }),
      output: `<!here> ${nasty}`,
    });
    const message = buildExecutionStatus(statusInput({ execution: e }));
    assertWithinLimits(message, 'message');
    const text = sectionTexts(message.blocks).join('\n');
    expect(text).toContain('*&lt;!channel&gt; &amp; co*');
    expect(text).toContain('&lt;http://evil|click&gt;');
    expect(text).toContain('&lt;!here&gt; &lt;!channel&gt; &amp; co');
    expect(text).not.toMatch(/<!channel>|<!here>|<@U123>|<http/);
  });

  it('shows inputs that are not a JSON object as escaped, truncated text', () => {
    const e = execution({ inputs: `region=<us-east-1> ${'x'.repeat(3000)}` });
    const inputs = parseExecutionInputs(e.inputs);
    expect(inputs.kind).toBe('text');
    const message = buildExecutionStatus(statusInput({ execution: e, inputs }));
    assertWithinLimits(message, 'message');
    const inputsText = sectionTexts(message.blocks).find((t) => t.startsWith('*Inputs*'))!;
    expect(inputsText).toContain('region=&lt;us-east-1&gt;');
    expect(inputsText.endsWith('…')).toBe(true);
    expect(codePointLength(inputsText)).toBeLessThan(1300);
  });

  it('trims a long output to fit and keeps its tail', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `step ${i}: ok`);
    lines.push('FATAL: disk full');
    const message = buildExecutionStatus(statusInput({ execution: execution({ output: lines.join('\n') }) }));
    assertWithinLimits(message, 'message');
    const output = sectionTexts(message.blocks).find((t) => t.startsWith('*Output*'))!;
    expect(output).toContain('FATAL: disk full');
    expect(output).toContain('step 1999: ok');
    expect(output).not.toContain('step 0: ok');
    expect(output).toMatch(/earlier lines not shown/);
    expect(codePointLength(output)).toBeLessThanOrEqual(3000);
  });

  it('offers Full output, Find in output (as the Full output header promises), Re-run and Refresh', () => {
    const message = buildExecutionStatus(statusInput());
    const [output, find, rerun, refresh] = buttons(message.blocks);
    expect(output).toMatchObject({ action_id: ACTIONS.executionOutput, value: execution().id });
    expect(find).toMatchObject({ action_id: ACTIONS.executionFind, value: execution().id });
    expect(rerun?.action_id).toBe(ACTIONS.executionRerun);
    expect(JSON.parse(rerun!.value)).toEqual({ e: execution().id, r: 'rb-1' });
    expect(refresh).toMatchObject({ action_id: ACTIONS.executionRefresh, value: execution().id });
  });

  it('has no Full output button without output, and an empty runbook id when unknown', () => {
    const e = execution({ output: '', executionStatus: 'EXECUTION_STATUS_IN_PROGRESS', endTime: null, reason: '' });
    const message = buildExecutionStatus(
      statusInput({ execution: e, runbookId: null, nowMs: Date.parse('2026-03-01T10:00:50Z') }),
    );
    assertWithinLimits(message, 'message');
    expect(buttons(message.blocks).map((b) => b.text.text)).toEqual(['Re-run', 'Refresh']);
    expect(JSON.parse(buttons(message.blocks)[0]!.value)).toEqual({ e: e.id, r: '' });
    const text = sectionTexts(message.blocks).join('\n');
    expect(text).toContain(':hourglass_flowing_sand: *Restart Pod* running');
    expect(text).toContain('*Duration*\nrunning for 45s');
    expect(text).toContain('*Ended*\nnot yet');
    expect(text).toContain('_No output yet._');
    expect(text).not.toContain('*Reason*');
  });

  it('stays within limits when every value is huge', () => {
    const huge = '😀'.repeat(6000);
    const e = execution({
      id: huge,
      workflowName: huge,
      executor: huge,
      approver: huge,
      version: huge,
      reason: huge,
      duration: huge,
      startTime: null,
      endTime: null,
      inputs: JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${huge}${i}`, huge]))),
      output: huge,
    });
    assertWithinLimits(buildExecutionStatus(statusInput({ execution: e, runbookId: huge })), 'message');
  });
});

describe('buildExecutionNotFound', () => {
  it('names the id, escaped, and says where to find valid ids', () => {
    const message = buildExecutionNotFound('<!channel>');
    assertWithinLimits(message, 'message');
    const text = sectionTexts(message.blocks).join('\n');
    expect(text).toContain('No execution has the id `&lt;!channel&gt;`. Check the id in `/runbook executions`.');
  });
});

describe('parseExecutionInputs and decodeRerunValue', () => {
  it('reads a JSON object, treats an empty string as no inputs, and anything else as text', () => {
    expect(parseExecutionInputs('{"a":1}')).toEqual({ kind: 'object', values: { a: 1 } });
    expect(parseExecutionInputs('')).toEqual({ kind: 'object', values: {} });
    expect(parseExecutionInputs('[1,2]')).toEqual({ kind: 'text', text: '[1,2]' });
    expect(parseExecutionInputs('a=b')).toEqual({ kind: 'text', text: 'a=b' });
  });

  it('reads the JSON value and a bare execution id', () => {
    expect(decodeRerunValue('{"e":"x","r":"rb"}')).toEqual({ executionId: 'x', runbookId: 'rb' });
    expect(decodeRerunValue('{"e":"x","r":""}')).toEqual({ executionId: 'x', runbookId: null });
    expect(decodeRerunValue('exec-1')).toEqual({ executionId: 'exec-1', runbookId: null });
    expect(decodeRerunValue('{"r":"rb"}')).toBeNull();
    expect(decodeRerunValue('')).toBeNull();
  });
});

function modalChunks(view: ModalView): string[] {
  return view.blocks
    .filter((b): b is Extract<KnownBlock, { type: 'section' }> => b.type === 'section')
    .map((b) => b.text?.text ?? '')
    .filter((t) => t.startsWith('```'));
}

/** The chunks' contents, fences removed, joined back as one text. */
function reassemble(chunks: string[]): string {
  return chunks.map((c) => c.slice(4, -4)).join('\n');
}

describe('buildOutputModal', () => {
  it('shows a short output whole in one block', () => {
    const view = buildOutputModal(execution());
    assertWithinLimits(view, 'modal');
    expect(view.callback_id).toBe(VIEWS.output);
    expect(modalChunks(view)).toEqual(['```\nline 1\nline 2\nError: pod not found\n```']);
  });

  it('splits a longer output over several blocks of at most 2900 characters, losing nothing', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${i} <tag> & \`\`\` value ${'-'.repeat(i % 50)}`);
    const output = lines.join('\n');
    const view = buildOutputModal(execution({ output }));
    assertWithinLimits(view, 'modal');
    const chunks = modalChunks(view);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(codePointLength(chunk)).toBeLessThanOrEqual(2900);
      // Only the fences themselves: ``` inside the output is broken up so it cannot close a block early.
      expect(chunk.match(/```/g)).toHaveLength(2);
    }
    const expected = lines.map((l) => escapeMrkdwn(l).replace(/```/g, '`\u200b`\u200b`')).join('\n');
    expect(reassemble(chunks)).toBe(expected);
    expect(view.blocks.some((b) => b.type === 'context')).toBe(false);
  });

  it('cuts a single enormous line without splitting an entity', () => {
    const output = '&'.repeat(10_000);
    const { chunks, cut } = chunkOutput(output);
    expect(cut).toBe(false);
    for (const chunk of chunks) expect(chunk.slice(4, -4)).toMatch(/^(&amp;)+$/);
    expect(reassemble(chunks).replace(/\n/g, '')).toBe('&amp;'.repeat(10_000));
  });

  it('shows the LAST part of a huge output and says how much was left out', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `log line ${i} ${'.'.repeat(20)}`);
    lines.push('FINAL: exit code 3');
    const view = buildOutputModal(execution({ output: lines.join('\n') }));
    assertWithinLimits(view, 'modal');
    const chunks = modalChunks(view);
    expect(chunks).toHaveLength(MAX_OUTPUT_CHUNKS);
    expect(chunks.at(-1)).toContain('FINAL: exit code 3');
    expect(chunks[0]).not.toContain('log line 0 ');
    const note = view.blocks.find((b) => b.type === 'context') as { elements: { text: string }[] };
    expect(note.elements[0]!.text).toMatch(
      /^:scissors: The output is too long to show whole, so this is its last part: the first \d+ of 20001 lines \(about [\d,]+ characters\) are left out\.$/,
    );
    const { omittedLines } = chunkOutput(lines.join('\n'));
    expect(reassemble(chunks).split('\n')[0]).toBe(lines[omittedLines]);
  });

  it('says so when there is no output, and escapes the header', () => {
    const view = buildOutputModal(execution({ output: '', workflowName: '<!channel> & co' }));
    assertWithinLimits(view, 'modal');
    const text = sectionTexts(view.blocks as KnownBlock[]).join('\n');
    expect(text).toContain('*&lt;!channel&gt; &amp; co*');
    expect(text).toContain('_This execution has no output._');
  });
});
