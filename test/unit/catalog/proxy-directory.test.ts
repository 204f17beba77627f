import { describe, expect, it } from 'vitest';
import { notOfferedSentence } from '../../../src/catalog/proxy-directory.ts';

describe('notOfferedSentence', () => {
  it('names the refused proxy and the offered ones', () => {
    expect(
      notOfferedSentence(
        'nosuch',
        [
          { id: 'proxy-dev', name: 'Development' },
          { id: 'proxy-x', name: 'proxy-x' },
        ],
        'The ',
      ),
    ).toBe('The proxy "nosuch" is not one of the offered proxies: Development (proxy-dev), proxy-x.');
  });

  it('with no proxy chosen and none known, says what to do instead of quoting an empty name', () => {
    const sentence = notOfferedSentence(null, [], 'The ');
    expect(sentence).not.toContain('""');
    expect(sentence).toContain('--proxy ID');
    expect(sentence).toContain('RUNBOOK_PROXIES');
  });
});
