// RUNBOOK_API_URLS: the Runbook API addresses a workspace may connect its key to (many workspaces).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';

describe('RUNBOOK_API_URLS', () => {
  it('is empty unless set (then only RUNBOOK_API_URL, or the built-in emulator, is offered)', () => {
    expect(loadConfig({}).api.allowedUrls).toEqual([]);
    expect(loadConfig({ RUNBOOK_API_URLS: '' }).api.allowedUrls).toEqual([]);
  });

  it('lists the addresses, comma-separated, spaces ignored', () => {
    const config = loadConfig({
      RUNBOOK_API_URLS: ' https://eu.runbooks.example.com , https://us.runbooks.example.com/api,',
    });
    expect(config.api.allowedUrls).toEqual(['https://eu.runbooks.example.com', 'https://us.runbooks.example.com/api']);
  });

  it('refuses an entry that is not an http(s) URL, naming the variable', () => {
    let problems: string[] = [];
    try {
      loadConfig({ RUNBOOK_API_URLS: 'https://ok.example.com,ftp://files.example.com' });
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems;
    }
    expect(problems.join('\n')).toMatch(/RUNBOOK_API_URLS/);
  });
});
