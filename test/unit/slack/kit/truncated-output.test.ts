// An output the client could read only the end of says so, with its size and where to get it whole,
// on the result card, the status view and the output modal; a whole output says nothing more.
import { describe, expect, it } from 'vitest';
import { Execution } from '../../../../src/api/schemas.ts';
import { buildResultCard } from '../../../../src/slack/kit/execution-card.ts';
import {
  buildExecutionStatus,
  buildOutputModal,
  parseExecutionInputs,
} from '../../../../src/slack/kit/execution-status.ts';
import { checkBlocks, checkView } from '../../../../src/slack/kit/limits.ts';

const run = { runbookId: 'rb', runbookName: 'Dump', proxyId: 'p', startedBy: 'U01ALICE', inputs: {} };
const cut = Execution.parse({
  id: 'exec-9',
  workflowName: 'Dump',
  executionStatus: 'EXECUTION_STATUS_SUCCEEDED',
  output: '…last lines\nDONE',
  outputTruncatedBytes: 500 * 1024 * 1024,
});
const whole = { ...cut, outputTruncatedBytes: undefined };

describe('a truncated output', () => {
  it('is announced on every surface that shows output', () => {
    const surfaces = {
      card: buildResultCard(run, cut).blocks,
      status: buildExecutionStatus({ execution: cut, inputs: parseExecutionInputs(cut.inputs), runbookId: 'rb' })
        .blocks,
      modal: buildOutputModal(cut).blocks,
    };
    for (const [name, blocks] of Object.entries(surfaces)) {
      const text = JSON.stringify(blocks);
      expect(text, name).toContain('500.0 MB');
      expect(text, name).toContain('last part');
      expect(text, name).toContain('exec-9');
    }
    expect(checkBlocks(surfaces.card, 'message')).toEqual([]);
    expect(checkView(buildOutputModal(cut) as unknown as Record<string, unknown>)).toEqual([]);
  });

  it('is not announced when the output is whole', () => {
    expect(JSON.stringify(buildResultCard(run, whole).blocks)).not.toContain('last part');
    expect(JSON.stringify(buildOutputModal(whole).blocks)).not.toContain('last part');
  });
});
