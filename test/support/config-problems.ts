// What loadConfig refuses in this environment: its problems, one sentence each ([] when it loads).
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
