// RUNBOOK_API_URLS: the Runbook API addresses a workspace may connect its key to (many workspaces).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { MANY_WORKSPACE_ENV as OAUTH, problemsOf } from '../../support/config-problems.ts';

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
    const problems = problemsOf({ RUNBOOK_API_URLS: 'https://ok.example.com,ftp://files.example.com' });
    expect(problems.join('\n')).toMatch(/RUNBOOK_API_URLS/);
  });
});

describe('Runbook API addresses in many-workspace mode (each workspace brings its own key)', () => {
  it('takes RUNBOOK_API_URL without RUNBOOK_API_KEY, and starts no built-in emulator', () => {
    const config = loadConfig({ ...OAUTH, RUNBOOK_API_URL: 'https://runbooks.example.com' });
    expect(config.api.url).toBe('https://runbooks.example.com');
    expect(config.api.keyless).toBe(true);
    expect(config.emulator).toBeNull();
  });

  it('with only RUNBOOK_API_URLS: those addresses, the first as the default, no built-in emulator', () => {
    const config = loadConfig({
      ...OAUTH,
      RUNBOOK_API_URLS: 'https://eu.runbooks.example.com,https://us.runbooks.example.com',
    });
    expect(config.api.url).toBe('https://eu.runbooks.example.com');
    expect(config.api.allowedUrls).toEqual(['https://eu.runbooks.example.com', 'https://us.runbooks.example.com']);
    expect(config.emulator).toBeNull();
  });

  it('with no address at all keeps the built-in emulator (a trial), as the sandbox does', () => {
    expect(loadConfig(OAUTH).emulator).not.toBeNull();
    expect(loadConfig(OAUTH).api.url).toBeNull();
    expect(loadConfig({}).emulator).not.toBeNull();
    expect(loadConfig({}).api.keyless).toBe(false);
  });

  it('one workspace still needs RUNBOOK_API_KEY beside RUNBOOK_API_URL, and RUNBOOK_API_URLS alone is no address there', () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      RUNBOOK_API_URL: 'https://r.example.com',
    });
    expect(problems).toEqual(['RUNBOOK_API_KEY: required when RUNBOOK_API_URL is set']);
    const single = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      RUNBOOK_API_URLS: 'https://r.example.com',
    });
    expect(single.api.url).toBeNull();
    expect(single.api.keyless).toBe(false);
  });
});
