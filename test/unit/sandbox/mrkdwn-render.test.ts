// The sandbox's mrkdwn parser (pure half of src/sandbox/ui/mrkdwn.js): Slack's formatting, links and
// mentions become nodes, entities are decoded only for display, and unsafe links never become links.
import { describe, expect, it } from 'vitest';
import { formatSlackDate, knowsEmoji, parseMrkdwn, safeUrl } from '../../../src/sandbox/ui/mrkdwn.js';

describe('parseMrkdwn', () => {
  it('parses bold, italic, strike and inline code', () => {
    expect(parseMrkdwn('*bold* _it_ ~gone~ `a*b*`')).toEqual([
      { type: 'bold', children: [{ type: 'text', text: 'bold' }] },
      { type: 'text', text: ' ' },
      { type: 'italic', children: [{ type: 'text', text: 'it' }] },
      { type: 'text', text: ' ' },
      { type: 'strike', children: [{ type: 'text', text: 'gone' }] },
      { type: 'text', text: ' ' },
      { type: 'code', text: 'a*b*' },
    ]);
  });

  it('leaves marks inside words and unmatched marks as text', () => {
    expect(parseMrkdwn('snake_case_name 2*3 and *open')).toEqual([
      { type: 'text', text: 'snake_case_name 2*3 and *open' },
    ]);
  });

  it('turns fenced blocks into pre and keeps their content literal', () => {
    expect(parseMrkdwn('out:\n```\n*x* &lt;y&gt;\n```')).toEqual([
      { type: 'text', text: 'out:' },
      { type: 'br' },
      { type: 'pre', text: '*x* <y>\n' },
    ]);
  });

  it('parses links, mentions and dates with fallbacks', () => {
    expect(
      parseMrkdwn(
        '<https://x.test/a?b=1&amp;c=2|the *docs*> <@U01ALICE> <#C01OPS|ops> <!date^1700000000^{date}|Nov 14>',
      ),
    ).toEqual([
      {
        type: 'link',
        url: 'https://x.test/a?b=1&c=2',
        children: [
          { type: 'text', text: 'the ' },
          { type: 'bold', children: [{ type: 'text', text: 'docs' }] },
        ],
      },
      { type: 'text', text: ' ' },
      { type: 'user', id: 'U01ALICE', label: '' },
      { type: 'text', text: ' ' },
      { type: 'channel', id: 'C01OPS', label: 'ops' },
      { type: 'text', text: ' ' },
      { type: 'date', seconds: 1700000000, format: '{date}', text: 'Nov 14' },
    ]);
  });

  it('keeps the link of a date token apart from its format', () => {
    expect(parseMrkdwn('<!date^1700000000^{time}^https://x.test|fallback>')).toEqual([
      { type: 'date', seconds: 1700000000, format: '{time}', link: 'https://x.test', text: 'fallback' },
    ]);
  });

  it('decodes escaped text for display without turning it into links or markup', () => {
    expect(parseMrkdwn('Check &lt;prod&gt; &amp; "staging" :warning:')).toEqual([
      { type: 'text', text: 'Check <prod> & "staging" ⚠️' },
    ]);
  });

  it('quotes lines that start with >', () => {
    expect(parseMrkdwn('&gt; said\nok')).toEqual([
      { type: 'quote', children: [{ type: 'text', text: 'said' }] },
      { type: 'br' },
      { type: 'text', text: 'ok' },
    ]);
  });
});

describe('formatSlackDate', () => {
  // 2023-11-14T22:13:20Z: still the 14th in New York, already the 15th in Tokyo.
  const at = 1_700_000_000;

  it("renders each token in the viewer's time zone, like Slack", () => {
    expect(formatSlackDate(at, '{date_short} {time}', { timeZone: 'America/New_York' })).toBe('Nov 14, 2023 5:13 PM');
    expect(formatSlackDate(at, '{date_short} {time}', { timeZone: 'Asia/Tokyo' })).toBe('Nov 15, 2023 7:13 AM');
    expect(formatSlackDate(at, '{date_num} {time_secs}', { timeZone: 'Europe/Berlin' })).toBe('2023-11-14 11:13:20 PM');
    expect(formatSlackDate(at, '{date_long}', { timeZone: 'Asia/Tokyo' })).toBe('Wednesday, November 15th, 2023');
    expect(formatSlackDate(at, '{date}', { timeZone: 'UTC' })).toBe('November 14th, 2023');
  });

  it('says today, yesterday and tomorrow in the _pretty forms, by the viewer’s calendar day', () => {
    const now = at * 1000;
    expect(formatSlackDate(at, '{date_short_pretty} {time}', { timeZone: 'UTC', now })).toBe('today 10:13 PM');
    expect(formatSlackDate(at - 86_400, '{date_pretty}', { timeZone: 'UTC', now })).toBe('yesterday');
    expect(formatSlackDate(at + 86_400, '{date_long_pretty}', { timeZone: 'UTC', now })).toBe('tomorrow');
    // Two hours later in UTC is already the next day in Tokyo.
    expect(formatSlackDate(at, '{date_pretty}', { timeZone: 'Asia/Tokyo', now: now - 2 * 3_600_000 })).toBe('today');
    expect(formatSlackDate(at - 3 * 86_400, '{date_short_pretty}', { timeZone: 'UTC', now })).toBe('Nov 11, 2023');
  });

  it('renders {ago} and leaves unknown tokens as typed', () => {
    expect(formatSlackDate(at - 180, '{ago} {nope}', { now: at * 1000 })).toBe('3 minutes ago {nope}');
  });
});

describe('the emoji the bot sends', () => {
  it('are all known to the sandbox, so none shows as a raw :shortcode:', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const root = new URL('../../../src/', import.meta.url);
    // The folders whose strings reach Slack; the store and emulator use colons for other things (:memory:).
    const files = (await readdir(root, { recursive: true })).filter(
      (f) => f.endsWith('.ts') && !/^(store|emulator|sandbox)[\\/]/.test(f),
    );
    const sent = new Set<string>();
    for (const file of files) {
      for (const line of (await readFile(new URL(file, root), 'utf8')).split('\n')) {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
        for (const m of line.matchAll(/:([a-z][a-z0-9_+-]*):/g)) sent.add(m[1]!);
      }
    }
    expect(sent.size).toBeGreaterThan(10);
    expect([...sent].filter((name) => !knowsEmoji(name))).toEqual([]);
  });
});

describe('safeUrl', () => {
  it('allows web and mail links only', () => {
    expect(safeUrl('https://example.com')).toBe('https://example.com');
    expect(safeUrl('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('data:text/html,x')).toBeNull();
  });
});
