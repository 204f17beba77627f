import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { MANY_WORKSPACE_ENV as OAUTH, problemsOf } from '../../support/config-problems.ts';

const KEY = OAUTH.SECRETS_ENCRYPTION_KEY;

describe('many-workspace mode in the configuration', () => {
  it('is chosen by SLACK_CLIENT_ID: HTTP, no bot token, the OAuth settings and the key', () => {
    const config = loadConfig(OAUTH);
    expect(config.slack.mode).toBe('http');
    expect(config.slack.botToken).toBeNull();
    expect(config.slack.oauth).toEqual({
      clientId: '111.222',
      clientSecret: 'client-secret-value',
      stateSecret: 'state-secret-of-enough-length',
      redirectUri: null,
      authorizationUrl: null,
      dataRetentionDays: 30,
    });
    expect(config.secrets?.key.equals(Buffer.from(KEY, 'base64'))).toBe(true);
    expect(config.secrets?.previousKey).toBeNull();
  });

  it('runs over Socket Mode when SLACK_APP_TOKEN is set: one app-level token for every installation, no signing secret', () => {
    const { SLACK_SIGNING_SECRET: _, ...withoutSecret } = OAUTH;
    const config = loadConfig({ ...withoutSecret, SLACK_APP_TOKEN: 'xapp-1-A1-org-token' });
    expect(config.slack.mode).toBe('socket');
    expect(config.slack.appToken).toBe('xapp-1-A1-org-token');
    expect(config.slack.botToken).toBeNull();
    expect(config.slack.oauth?.clientId).toBe('111.222');
    // A signing secret set anyway changes nothing: Socket Mode it is.
    expect(loadConfig({ ...OAUTH, SLACK_APP_TOKEN: 'xapp-1-A1-org-token' }).slack.mode).toBe('socket');
    // Without the app token, HTTP needs the signing secret and says the other way.
    expect(problemsOf(withoutSecret)).toEqual([
      'SLACK_SIGNING_SECRET: required when SLACK_CLIENT_ID is set (HTTP mode), unless SLACK_APP_TOKEN is set for Socket Mode',
    ]);
  });

  it('refuses Socket Mode with the same sentences as HTTP for what is missing', () => {
    const problems = problemsOf({
      SLACK_CLIENT_ID: '111.222',
      SLACK_APP_TOKEN: 'xapp-1-A1-org-token',
      SLACK_BOT_TOKEN: 'xoxb-should-not-be-here',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'SECRETS_ENCRYPTION_KEY',
      'SLACK_BOT_TOKEN',
      'SLACK_CLIENT_SECRET',
      'SLACK_STATE_SECRET',
    ]);
    const http = problemsOf({ SLACK_CLIENT_ID: '111.222', SLACK_BOT_TOKEN: 'xoxb-should-not-be-here' });
    for (const sentence of problems) expect(http).toContain(sentence);
    expect(problems.join('\n')).not.toContain('xoxb-should-not-be-here');
  });

  it('reads DATA_RETENTION_DAYS (default 30) and refuses a negative one', () => {
    expect(loadConfig({ ...OAUTH, DATA_RETENTION_DAYS: '7' }).slack.oauth?.dataRetentionDays).toBe(7);
    expect(problemsOf({ ...OAUTH, DATA_RETENTION_DAYS: '-1' }).join(' ')).toMatch(/DATA_RETENTION_DAYS/);
  });

  it('leaves the single-workspace and sandbox modes as they were', () => {
    expect(loadConfig({}).slack.mode).toBe('sandbox');
    expect(loadConfig({}).slack.oauth).toBeNull();
    const single = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' });
    expect(single.slack.mode).toBe('http');
    expect(single.slack.oauth).toBeNull();
    expect(single.secrets).toBeNull();
  });

  it('refuses to start without a key, saying how to make one', () => {
    const { SECRETS_ENCRYPTION_KEY: _, ...withoutKey } = OAUTH;
    const problems = problemsOf(withoutKey);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRETS_ENCRYPTION_KEY: required when SLACK_CLIENT_ID is set/);
    expect(problems[0]).toContain('openssl rand -base64 32');
  });

  it('reports every missing piece at once and never echoes a value', () => {
    const problems = problemsOf({
      SLACK_CLIENT_ID: '111.222',
      SLACK_BOT_TOKEN: 'xoxb-should-not-be-here',
      SECRETS_ENCRYPTION_KEY: 'too-short-key',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'SECRETS_ENCRYPTION_KEY',
      'SLACK_BOT_TOKEN',
      'SLACK_CLIENT_SECRET',
      'SLACK_SIGNING_SECRET',
      'SLACK_STATE_SECRET',
    ]);
    expect(problems.join('\n')).not.toContain('xoxb-should-not-be-here');
    expect(problems.join('\n')).not.toContain('too-short-key');
  });

  it('takes a previous key for rotation, only beside a current one', () => {
    const previous = randomBytes(32).toString('hex');
    const config = loadConfig({ ...OAUTH, SECRETS_ENCRYPTION_KEY_PREVIOUS: previous });
    expect(config.secrets?.previousKey?.toString('hex')).toBe(previous);
    expect(problemsOf({ SECRETS_ENCRYPTION_KEY_PREVIOUS: previous })).toEqual([
      'SECRETS_ENCRYPTION_KEY: required when SECRETS_ENCRYPTION_KEY_PREVIOUS is set (the new key)',
    ]);
    expect(problemsOf({ SLACK_CLIENT_SECRET: 'x' })).toEqual([
      'SLACK_CLIENT_ID: required when SLACK_CLIENT_SECRET or SLACK_STATE_SECRET is set',
    ]);
  });
});
