// The sandbox's mrkdwn parser (pure half of src/sandbox/ui/mrkdwn.js): Slack's formatting, links and
// mentions become nodes, entities are decoded only for display, and unsafe links never become links.
import { describe, expect, it } from 'vitest';
import { parseMrkdwn, safeUrl } from '../../../src/sandbox/ui/mrkdwn.js';

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
      { type: 'date', text: 'Nov 14' },
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

describe('safeUrl', () => {
  it('allows web and mail links only', () => {
    expect(safeUrl('https://example.com')).toBe('https://example.com');
    expect(safeUrl('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeUrl('javascript:alert(1)')).toBeNull();
    expect(safeUrl('data:text/html,x')).toBeNull();
  });
});
