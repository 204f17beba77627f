// The many-workspace sandbox's settings for the bot: the OAuth app it makes up against the fake Slack,
// with the operator's DATA_RETENTION_DAYS still in force (the README's Remove and reinstall depend on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { type FakeSlack, startFakeSlack } from '../../../src/sandbox/fake-slack-api.ts';
import { manyWorkspaceSandboxConfig } from '../../../src/sandbox/sandbox-workspaces.ts';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack({ port: 0 });
});
afterAll(async () => {
  await fake?.close();
});

describe('manyWorkspaceSandboxConfig', () => {
  it('keeps DATA_RETENTION_DAYS as set', () => {
    const config = loadConfig({ SANDBOX_MANY_WORKSPACES: 'true', DATA_RETENTION_DAYS: '0' });
    expect(manyWorkspaceSandboxConfig(config, fake).slack.oauth?.dataRetentionDays).toBe(0);
  });

  it('keeps the default of 30 days when unset', () => {
    const config = loadConfig({ SANDBOX_MANY_WORKSPACES: 'true' });
    const oauth = manyWorkspaceSandboxConfig(config, fake).slack.oauth;
    expect(oauth?.dataRetentionDays).toBe(30);
    expect(oauth?.authorizationUrl).toBe(`${fake.origin}/oauth/v2/authorize`);
  });
});
