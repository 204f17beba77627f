// What a run printed, as Slack gets it, through the real Bolt pipeline: every text argument of every
// Web API call passes the outgoing guard (the uploaded file's initial_comment with a runbook named
// `<!channel> …`, the Workflow Builder step's outputs); output that is not valid UTF-8 (invalid bytes,
// NUL) is shown as text with replacement characters, not as base64; and a 10 MB output, whose file
// holds only its last 1 MiB, has a card that says so and how to get all of it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../src/emulator/execution-store.ts';
import { stepDefinition } from '../../src/sandbox/workflow-steps.ts';
import { FUNCTIONS } from '../../src/slack/kit/ids.ts';
import { type Harness, QUICK_WATCH_ENV, startHarness, waitFor } from '../support/bot-harness.ts';

const NAME = '<!channel> Collect Logs';
const TEN_MB = 10 * 1024 * 1024;

function output(record: ExecutionRecord, simulated: string): Buffer | string | null {
  switch (record.params.namespace) {
    case 'broken-bytes':
      return Buffer.concat([
        Buffer.from('first line\n'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' after two invalid bytes\nbefore a NUL:'),
        Buffer.from([0x00]),
        Buffer.from(':after it\n<!channel> the end\n'),
      ]);
    case 'huge': {
      const line = `${'x'.repeat(99)}\n`;
      return `${line.repeat(TEN_MB / line.length)}THE LAST LINE\n`;
    }
    default:
      return simulated;
  }
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { ...QUICK_WATCH_ENV, RUNBOOK_API_MAX_BODY_BYTES: String(64 * 1024 * 1024) } });
  const logs = [...h.emulator.state.workflows.byId.values()].find(
    (r) => r.workflow.name === 'Collect Kubernetes Pod Logs',
  )!;
  logs.workflow.name = NAME;
  h.runtime.deps.catalog.invalidate();
  h.emulator.state.executions.outputOverride = output;
});
afterAll(async () => {
  await h?.stop();
});

const messagesIn = (channel: string) => h.fake.state.messages[channel] ?? [];

/** Runs the renamed runbook from a Workflow Builder step that waits; returns its step id and execution. */
async function runStep(namespace: string): Promise<{ stepId: string; execution: ExecutionRecord }> {
  const res = await h.user().runWorkflowStep(FUNCTIONS.runRunbook, stepDefinition(FUNCTIONS.runRunbook), {
    invoking_user: 'U01ALICE',
    runbook: NAME,
    inputs: JSON.stringify({ namespace }),
    channel: 'C01OPS',
    wait_for_completion: true,
  });
  expect(res.status).toBe(200);
  const execution = await waitFor(
    () => [...h.emulator.state.executions.byId.values()].find((e) => e.params.namespace === namespace),
    'the execution',
  );
  return { stepId: res.started.execution.id, execution };
}

/** Runs it, lets it end, and returns the result card and its text. */
async function finishedRun(namespace: string) {
  const { stepId, execution } = await runStep(namespace);
  h.clock.advance(60 * 60_000);
  const card = await waitFor(
    () =>
      messagesIn('C01OPS').find((m) => {
        const blocks = JSON.stringify(m.blocks ?? []);
        return blocks.includes(execution.id) && blocks.includes('*Output*');
      }),
    'the result card',
    30_000,
  );
  return { stepId, execution, card, text: JSON.stringify(card.blocks) };
}

it('invalid UTF-8 and NUL bytes are shown as text; the step outputs and file comment are escaped', async () => {
  const { stepId, execution, text } = await finishedRun('broken-bytes');
  expect(text).toContain('first line');
  expect(text).toContain('\uFFFD\uFFFD after two invalid bytes');
  expect(text).toContain('before a NUL:\uFFFD:after it');
  expect(text).not.toContain(execution.outputBase64.slice(0, 24));
  // The output's own <!channel> reaches the workflow escaped: a later step may post output_tail.
  const outputs = await waitFor(() => h.fake.state.functionExecutions[stepId]?.outputs, 'the step outputs');
  expect(String(outputs.output_tail)).toContain('&lt;!channel&gt; the end');
  expect(String(outputs.output_tail)).not.toContain('<!channel>');
});

it('a 10 MB output: the file holds its last 1 MiB, and the card says so', { timeout: 60_000 }, async () => {
  const { card, text } = await finishedRun('huge');
  expect(text).toContain('THE LAST LINE');
  expect(text).toContain('The file in the thread holds only the end of the output (its last 1 MiB of 10 MiB)');
  expect(text).toContain('*Full output* pages through all of it');
  const file = await waitFor(
    () => messagesIn('C01OPS').find((m) => m.thread_ts === card.ts && m.files?.length)?.files?.[0],
    'the output file',
    30_000,
  );
  expect(Buffer.byteLength(file.content ?? '')).toBeLessThanOrEqual(1024 * 1024 + 200);
  expect(file.content).toContain('THE LAST LINE');
  // The file's comment names the runbook escaped, and says it is the end of the output.
  const complete = h.fake.state.calls.find((c) => c.method === 'files.completeUploadExternal' && c.ok)!;
  expect(complete.args.initial_comment).toContain('The last 1 MiB of the output of &lt;!channel&gt; Collect Logs');
  expect(complete.args.initial_comment).not.toContain('<!channel>');
});
