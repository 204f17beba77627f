// The private "already done" answer to a repeated acting click: who and when where the claim knows.
import { describe, expect, it } from 'vitest';
import { alreadyDoneMessage } from '../../../../src/slack/kit/common.ts';
import { checkBlocks } from '../../../../src/slack/kit/limits.ts';

const AT = Date.parse('2026-11-25T10:30:00Z');

describe('alreadyDoneMessage', () => {
  it('names who did it (you, or a mention) and when, as a Slack date with a UTC fallback', () => {
    const other = JSON.stringify(alreadyDoneMessage({ by: 'U02BOB', at: AT }, 'U01ALICE').blocks);
    expect(other).toContain('already done, so nothing more happened. (by <@U02BOB>, <!date^1795602600^');
    expect(other).toContain('|2026-11-25 10:30 UTC>');
    const mine = alreadyDoneMessage({ by: 'U01ALICE', at: AT }, 'U01ALICE');
    expect(JSON.stringify(mine.blocks)).toContain('(by you, <!date^');
    expect(mine.text).toBe('Already done: That was already done, so nothing more happened.');
    expect(checkBlocks(mine.blocks, 'message')).toEqual([]);
  });

  it('says only what it knows: an earlier release recorded no one', () => {
    const unknownWho = JSON.stringify(alreadyDoneMessage({ by: null, at: AT }, 'U01ALICE').blocks);
    expect(unknownWho).toContain('nothing more happened. (<!date^');
    const nothing = JSON.stringify(alreadyDoneMessage({ by: null, at: null }, 'U01ALICE').blocks);
    expect(nothing).toContain('nothing more happened."');
  });
});
