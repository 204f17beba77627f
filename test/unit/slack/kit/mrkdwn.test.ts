import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeBlock,
  codePointLength,
  escapeMrkdwn,
  formatDuration,
  inlineCode,
  mrkdwnText,
  plainText,
  slackDate,
  truncate,
  userMention,
} from '../../../../src/slack/kit/mrkdwn.ts';

const hasLoneSurrogate = (s: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('escapeMrkdwn', () => {
  it('neutralises mentions, broadcasts and links', () => {
    expect(escapeMrkdwn('<!channel> hi <@U123> see <http://x|y>')).toBe(
      '&lt;!channel&gt; hi &lt;@U123&gt; see &lt;http://x|y&gt;',
    );
  });

  it('escapes & first and is deliberately not idempotent', () => {
    expect(escapeMrkdwn('a & b')).toBe('a &amp; b');
    expect(escapeMrkdwn('&amp;')).toBe('&amp;amp;');
  });

  it('shows text from outside literally: a mark that would open or close a span gets a look-alike', () => {
    expect(escapeMrkdwn('*Not* _formatted_.')).toBe('\u2217Not\u2217 \u02cdformatted\u02cd.');
    expect(escapeMrkdwn('~s~ (*x*)')).toBe('\u223cs\u223c (\u2217x\u2217)');
    // A stray closing mark would end the builder's own *…* around the text: "*Big* freeze*".
    expect(`*${escapeMrkdwn('Big* freeze')}*`).toBe('*Big\u2217 freeze*');
    expect(`_${escapeMrkdwn('note_ (draft)')}_`).toBe('_note\u02cd (draft)_');
    // Marks that cannot open a span are left as written.
    expect(escapeMrkdwn('node_name 2 * 3 a*b*c snake_case_name * _ ~')).toBe(
      'node_name 2 * 3 a*b*c snake_case_name * _ ~',
    );
    // Code is never formatted: inlineCode keeps the characters.
    expect(inlineCode('*/5 * * * *')).toBe('`*/5 * * * *`');
    expect(inlineCode('_a_')).toBe('`_a_`');
  });

  it('never leaves < or > in the output (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const out = escapeMrkdwn(s);
        expect(out).not.toMatch(/[<>]/);
      }),
    );
  });
});

describe('truncate', () => {
  it('returns short text unchanged', () => {
    expect(truncate('hello', 5)).toBe('hello');
  });

  it('cuts with an ellipsis that counts towards max', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(codePointLength(truncate('hello world', 8))).toBe(8);
  });

  it('counts emoji as one character and never splits a surrogate pair', () => {
    const text = '😀😀😀😀😀';
    expect(truncate(text, 5)).toBe(text);
    expect(truncate(text, 3)).toBe('😀😀…');
    expect(hasLoneSurrogate(truncate('a😀b', 2))).toBe(false);
  });

  it('handles tiny limits', () => {
    expect(truncate('abc', 0)).toBe('');
    expect(truncate('abc', 1)).toBe('…');
  });

  it('never exceeds max and never leaves a lone surrogate (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 0, max: 50 }), (s, max) => {
        const out = truncate(s, max);
        expect(codePointLength(out)).toBeLessThanOrEqual(max);
        if (!hasLoneSurrogate(s)) expect(hasLoneSurrogate(out)).toBe(false);
      }),
    );
  });
});

describe('plainText', () => {
  it('builds a plain_text object with emoji on', () => {
    expect(plainText('Run')).toEqual({ type: 'plain_text', text: 'Run', emoji: true });
  });

  it('never produces empty text, which Slack rejects', () => {
    expect(plainText('').text).toBe(' ');
  });

  it('truncates to 150 by default', () => {
    expect(codePointLength(plainText('x'.repeat(200)).text)).toBe(150);
  });

  it('never exceeds max and is never empty (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 1, max: 200 }), (s, max) => {
        const out = plainText(s, max).text;
        expect(codePointLength(out)).toBeLessThanOrEqual(max);
        expect(out.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('mrkdwnText', () => {
  it('keeps text that fits', () => {
    expect(mrkdwnText('*hi* &amp; bye')).toEqual({ type: 'mrkdwn', text: '*hi* &amp; bye' });
  });

  it('never leaves half an entity', () => {
    const text = mrkdwnText('abc &amp; def', 8).text;
    expect(text).toBe('abc …');
  });

  it('never leaves an unclosed <link>', () => {
    const text = mrkdwnText('see <https://example.com|the docs> now', 20).text;
    expect(text).toBe('see …');
  });

  it('keeps a closed link before the cut', () => {
    const text = mrkdwnText('<@U123> ran it and it went well', 15).text;
    expect(text).toBe('<@U123> ran it…');
  });

  it('closes a code fence the cut left open, within max', () => {
    const text = mrkdwnText('log:\n```\nline one\nline two\nline three\n```', 30).text;
    expect(codePointLength(text)).toBeLessThanOrEqual(30);
    expect(text.match(/```/g)?.length).toBe(2);
  });

  it('never exceeds max and never leaves a dangling entity or angle (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 1, max: 60 }), (raw, max) => {
        const out = mrkdwnText(escapeMrkdwn(raw), max).text;
        expect(codePointLength(out)).toBeLessThanOrEqual(max);
        expect(out).not.toMatch(/&[a-z]*…$/);
        expect(out).not.toMatch(/[<>]/);
      }),
    );
  });
});

describe('codeBlock', () => {
  it('fences and escapes content', () => {
    expect(codeBlock('a <b> & c')).toBe('```\na &lt;b&gt; &amp; c\n```');
  });

  it('neutralises ``` inside the content so it cannot close the fence', () => {
    const out = codeBlock('before\n```\nafter');
    expect(out.startsWith('```\n')).toBe(true);
    expect(out.endsWith('\n```')).toBe(true);
    expect(out.match(/```/g)?.length).toBe(2);
    expect(out).toContain('after');
  });

  it('keeps the last lines and says how many earlier lines were dropped', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    const out = codeBlock(lines.join('\n'), 200);
    expect(codePointLength(out)).toBeLessThanOrEqual(200);
    expect(out).toContain('line 100\n```');
    expect(out).not.toContain('line 1\n');
    const match = out.match(/… \((\d+) earlier lines not shown\)/);
    expect(match).not.toBeNull();
    const shown = out.split('\n').filter((l) => l.startsWith('line ')).length;
    expect(Number(match![1]) + shown).toBe(100);
  });

  it('keeps the tail of a single line that is too long', () => {
    const out = codeBlock(`${'a'.repeat(500)}END`, 100);
    expect(codePointLength(out)).toBeLessThanOrEqual(100);
    expect(out).toContain('END\n```');
  });

  it('does not split entities when trimming', () => {
    const out = codeBlock('<'.repeat(300), 60);
    expect(codePointLength(out)).toBeLessThanOrEqual(60);
    expect(out.slice(4, -4)).toMatch(/^…(&lt;)+$/);
  });

  it('fits within max for any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 60, max: 300 }), (s, max) => {
        const out = codeBlock(s, max);
        expect(codePointLength(out)).toBeLessThanOrEqual(max);
        expect(out.match(/```/g)?.length).toBe(2);
        expect(out).not.toMatch(/[<>]/);
      }),
    );
  });
});

describe('inlineCode', () => {
  it('escapes and removes backticks and newlines', () => {
    expect(inlineCode('a`b\n<c>')).toBe('`aˋb &lt;c&gt;`');
  });

  it('fits max including the backticks without splitting entities', () => {
    const out = inlineCode('&&&&&&', 14);
    expect(codePointLength(out)).toBeLessThanOrEqual(14);
    expect(out).toBe('`&amp;&amp;…`');
  });
});

describe('userMention', () => {
  it('mentions real user ids', () => {
    expect(userMention('U123ABC')).toBe('<@U123ABC>');
    expect(userMention('W0ENTERPRISE1')).toBe('<@W0ENTERPRISE1>');
  });

  it('escapes anything else', () => {
    expect(userMention('!channel')).toBe('!channel');
    expect(userMention('U1><!here')).toBe('U1&gt;&lt;!here');
    expect(userMention('alice@example.com')).toBe('alice@example.com');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [400, '<1s'],
    [45_000, '45s'],
    [192_000, '3m 12s'],
    [180_000, '3m'],
    [(2 * 3600 + 5 * 60 + 30) * 1000, '2h 5m'],
    [(27 * 3600 + 10) * 1000, '1d 3h'],
    [86_400_000, '1d'],
    [Number.NaN, '0s'],
  ])('%d ms → %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('slackDate', () => {
  it('builds a date token with an escaped fallback', () => {
    expect(slackDate(1_790_000_000.7, '2026-09-21 <UTC>')).toBe(
      '<!date^1790000000^{date_short_pretty} {time}|2026-09-21 &lt;UTC&gt;>',
    );
  });

  it('accepts a custom format', () => {
    expect(slackDate(0, 'then', '{time}')).toBe('<!date^0^{time}|then>');
  });
});

describe('channelMention', () => {
  it('links real channel ids and shows anything else as inert text', async () => {
    const { channelMention } = await import('../../../../src/slack/kit/mrkdwn.ts');
    expect(channelMention('C01OPS')).toBe('<#C01OPS>');
    expect(channelMention('C1> <!channel')).toBe('C1&gt; &lt;!channel');
  });
});
