// The run form's metadata: what travels between opening and submission, the entry point included (a form
// opened by Re-run is audited `via rerun`). Anything else in `v` is dropped, so a form is a plain form.
import { describe, expect, it } from 'vitest';
import { decodeRunMetadata, encodeRunMetadata } from '../../../../src/slack/kit/run-modal.ts';

describe('run form metadata', () => {
  it('round-trips where the form came from, Re-run included', () => {
    const meta = { r: 'rb-1', c: 'C1', t: '1.2', v: 'rerun' as const };
    expect(decodeRunMetadata(encodeRunMetadata(meta))).toEqual(meta);
  });

  it('drops an entry point it does not know', () => {
    expect(decodeRunMetadata(JSON.stringify({ r: 'rb-1', c: 'C1', v: 'admin' }))).toEqual({ r: 'rb-1', c: 'C1' });
    expect(decodeRunMetadata(JSON.stringify({ r: 'rb-1', c: null, v: 42 }))).toEqual({ r: 'rb-1', c: null });
  });
});
