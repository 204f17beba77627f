// Bounded outputs: a response over the cap keeps its document and the tail of its long strings,
// says which were cut, is never read twice for a finished execution, and garbage ends in an error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, JsonTailKeeper, readCappedBody } from '../../../src/api/capped-body.ts';
import { ResponseValidationError } from '../../../src/api/errors.ts';
import { executionJson, respHdr, useMockApis } from './mock-api.ts';

const setup = useMockApis();

async function* chunks(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('readCappedBody', () => {
  it('keeps a body under the cap as it is', async () => {
    const text = JSON.stringify({ a: 'x'.repeat(100), b: [1, 2] });
    const body = await readCappedBody(chunks(text, 7), 10_000);
    expect(body).toEqual({ text, bytes: text.length, cut: new Map() });
  });

  it('cuts a long string to its tail (4-aligned) and keeps the rest of the document', async () => {
    const output = Buffer.from(`${'line\n'.repeat(20_000)}THE END`).toString('base64');
    const text = JSON.stringify({ execution: { id: 'e1', output, reason: 'done "quoted" \\ ok' }, n: 1 });
    const body = await readCappedBody(chunks(text, 4096), 8192);
    const parsed = JSON.parse(body.text);
    expect(parsed.execution.id).toBe('e1');
    expect(parsed.execution.reason).toBe('done "quoted" \\ ok');
    expect(parsed.n).toBe(1);
    const tail = parsed.execution.output as string;
    expect(tail.length).toBeLessThanOrEqual(4096);
    expect(output.endsWith(tail)).toBe(true);
    expect((output.length - tail.length) % 4).toBe(0);
    expect(Buffer.from(tail, 'base64').toString('utf8')).toMatch(/THE END$/);
    expect(body.cut.get(tail)).toBe(output.length);
  });

  it('rebuilds any JSON exactly when nothing needs cutting, whatever the chunking (escapes split across chunks)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.json({ maxDepth: 3 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.integer({ min: 1, max: 17 }),
        async (json, s, size) => {
          const text = JSON.stringify({ json: JSON.parse(json), s, end: [s, 1] });
          // The rebuilding path readCappedBody takes past the cap; strings stay under 1024 characters.
          const keeper = new JsonTailKeeper(1024, 10_000_000);
          for (let i = 0; i < text.length; i += size) keeper.write(text.slice(i, i + size));
          expect(JSON.parse(keeper.finish())).toEqual(JSON.parse(text));
          expect(keeper.cut.size).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a body that stays over the cap once rebuilt (a huge list, garbage)', async () => {
    const text = JSON.stringify(Array.from({ length: 50_000 }, (_, i) => i));
    await expect(readCappedBody(chunks(text, 1000), 65_536)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

describe('executions.get over the cap', () => {
  const big = (n: number) => Buffer.from(`${'x'.repeat(n)}\nlast line ✓`).toString('base64');

  it('returns the tail of the output, marked truncated with its size, and reads a finished one only once', async () => {
    const m = setup({ maxBodyBytes: 65_536 });
    const output = big(300_000);
    m.intercept('GET', '/v1alpha1/executions/e1').reply(200, {
      respHdr: respHdr(),
      execution: executionJson({ id: 'e1', output, executionStatus: 'EXECUTION_STATUS_SUCCEEDED' }),
    });
    const first = await m.api.executions.get('e1');
    expect(first.output.endsWith('\nlast line ✓')).toBe(true);
    expect(first.output.length).toBeLessThan(40_000);
    expect(first.outputTruncatedBytes).toBe(Math.floor((output.length * 3) / 4));
    // Again (Full output, Details, a retry): no second download.
    const again = await m.api.executions.get('e1');
    expect(again).toEqual(first);
    const summary = await m.api.executions.get('e1', { summary: true });
    expect(summary.output).toBe('');
    expect(m.calls()).toHaveLength(1);
  });

  it('does not mark or cache a body under the cap', async () => {
    const m = setup({ maxBodyBytes: 65_536 });
    for (let i = 0; i < 2; i++) {
      m.intercept('GET', '/v1alpha1/executions/e2').reply(200, {
        respHdr: respHdr(),
        execution: executionJson({ id: 'e2', output: big(100), executionStatus: 'EXECUTION_STATUS_SUCCEEDED' }),
      });
    }
    const e = await m.api.executions.get('e2');
    expect(e.outputTruncatedBytes).toBeUndefined();
    await m.api.executions.get('e2');
    expect(m.calls()).toHaveLength(2);
  });

  it('ends garbage over the cap in a ResponseValidationError, not a loop', async () => {
    const m = setup({ maxBodyBytes: 65_536 });
    m.intercept('GET', '/v1alpha1/executions/e3').reply(200, `[${'1,'.repeat(100_000)}1]`);
    const err = await m.api.executions.get('e3').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as Error).message).toContain('too large');
    expect(m.calls()).toHaveLength(1);
  });
});
