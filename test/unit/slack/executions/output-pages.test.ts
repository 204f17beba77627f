import { describe, expect, it } from 'vitest';
import { Execution } from '../../../../src/api/schemas.ts';
import {
  buildFindModal,
  buildOutputPage,
  decodeOutputPage,
  findInOutput,
} from '../../../../src/slack/executions/output-pages.ts';
import { checkView } from '../../../../src/slack/kit/limits.ts';

const output = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${i % 97 === 0 ? 'ERROR <!here>' : 'ok'}`).join(
  '\n',
);
const execution = Execution.parse({
  id: 'e-1',
  workflowName: 'Logs',
  executionStatus: 'EXECUTION_STATUS_FAILED',
  output,
});

describe('full output pages and find', () => {
  it('opens on the last page and pages back; every page is a valid modal', () => {
    const last = buildOutputPage(execution);
    const text = JSON.stringify(last.blocks);
    const [, current, total] = /Page (\d+) of (\d+)/.exec(text)!;
    expect(current).toBe(total);
    expect(text).toContain('line 3000 ok');
    expect(text).toContain('output_page_prev');
    expect(text).not.toContain('output_page_next');
    const first = buildOutputPage(execution, 0);
    expect(JSON.stringify(first.blocks)).toContain('line 1 ERROR &lt;!here&gt;');
    for (let p = 0; p < Number(total); p++) expect(checkView(buildOutputPage(execution, p))).toEqual([]);
    const prev = JSON.stringify(last.blocks).match(/"action_id":"output_page_prev","value":"((?:[^"\\]|\\.)*)"/)![1]!;
    expect(decodeOutputPage(JSON.parse(`"${prev}"`))).toEqual({ executionId: 'e-1', page: Number(total) - 2 });
  });

  it('finds the matching lines with their numbers, escaped', () => {
    const blocks = findInOutput(execution, 'error');
    const text = JSON.stringify(blocks);
    expect(text).toContain('31 lines contain `error`');
    expect(text).toContain('    1: line 1 ERROR &lt;!here&gt;');
    expect(text).toContain(' 2911: line 2911 ERROR');
    expect(text).not.toContain('line 2 ok');
    expect(checkView(buildFindModal('e-1', blocks, 'error'))).toEqual([]);
    expect(JSON.stringify(findInOutput(execution, 'nope'))).toContain('No line of the output contains `nope`');
  });
});
