import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMetadataSeal } from '../../../../src/slack/kit/metadata-seal.ts';

describe('metadata seal', () => {
  const seal = createMetadataSeal('xoxb-secret-token');
  it('opens what it sealed, and nothing else', () => {
    const sealed = seal.seal('{"r":"abc","c":"C1"}');
    expect(seal.open(sealed)).toBe('{"r":"abc","c":"C1"}');
    expect(seal.open(sealed.replace('abc', 'abd'))).toBeNull();
    expect(seal.open('{"r":"abc"}')).toBeNull();
    expect(seal.open(undefined)).toBeNull();
    expect(createMetadataSeal('another-token').open(sealed)).toBeNull();
  });
  it("with many workspaces, a seal opens only in its own installation's scope", () => {
    const sealed = seal.seal('{"r":"abc"}', 'T0AAA');
    expect(seal.open(sealed, 'T0AAA')).toBe('{"r":"abc"}');
    expect(seal.open(sealed, 'T0BBB')).toBeNull();
    expect(seal.open(sealed)).toBeNull();
    expect(seal.open(seal.seal('{"r":"abc"}'), 'T0AAA')).toBeNull();
  });
  it('round-trips any payload and keeps within private_metadata limits for 2900 chars', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2900 }), (payload) => {
        const sealed = seal.seal(payload);
        expect(seal.open(sealed)).toBe(payload);
        expect(sealed.length).toBeLessThanOrEqual(payload.length + 28);
      }),
    );
  });
});
