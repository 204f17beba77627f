// What loadConfig refuses in this environment: its problems, one sentence each ([] when it loads); and the
// environment of a many-workspace deployment that loads, for the tests to add to or take from.
import { ConfigError, loadConfig } from '../../src/config.ts';

export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

/** Many workspaces (SLACK_CLIENT_ID), with every setting that mode needs: it loads. */
export const MANY_WORKSPACE_ENV = {
  SLACK_CLIENT_ID: '111.222',
  SLACK_CLIENT_SECRET: 'client-secret-value',
  SLACK_STATE_SECRET: 'state-secret-of-enough-length',
  SLACK_SIGNING_SECRET: 'signing-secret',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};
