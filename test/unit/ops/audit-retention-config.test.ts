// AUDIT_RETENTION_DAYS: unset keeps the audit trail forever (existing deployments change nothing); a whole
// number of days from 1 to 36500 in every mode; anything else is one clear sentence that never echoes the value.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { problemsOf } from '../../support/config-problems.ts';

const MANY = {
  SLACK_CLIENT_ID: '123.456',
  SLACK_CLIENT_SECRET: 'client-secret-0123456789',
  SLACK_STATE_SECRET: 'state-secret-0123456789',
  SLACK_SIGNING_SECRET: 'signing-secret-0123456789',
  SECRETS_ENCRYPTION_KEY: 'a'.repeat(64),
};
const SINGLE = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'signing-secret-0123456789' };

describe('AUDIT_RETENTION_DAYS', () => {
  it('unset or empty: kept forever, in every mode', () => {
    for (const env of [{}, SINGLE, MANY, { AUDIT_RETENTION_DAYS: ' ' }]) {
      expect(loadConfig(env).audit).toEqual({ retentionDays: null });
    }
  });

  it('a whole number of days, in every mode', () => {
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '1' }).audit.retentionDays).toBe(1);
    expect(loadConfig({ ...SINGLE, AUDIT_RETENTION_DAYS: '365' }).audit.retentionDays).toBe(365);
    expect(loadConfig({ ...MANY, AUDIT_RETENTION_DAYS: '36500' }).audit.retentionDays).toBe(36_500);
  });

  it('refuses anything else with one sentence naming the variable and the range', () => {
    for (const value of ['0', '-3', '1.5', '36501', 'forever', '30d']) {
      const problems = problemsOf({ AUDIT_RETENTION_DAYS: value });
      expect(problems, value).toEqual([
        'AUDIT_RETENTION_DAYS: must be a whole number of days from 1 to 36500 (leave it unset to keep the audit trail until you prune it)',
      ]);
    }
  });
});
