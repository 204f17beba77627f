// Every listener callback, taken from the features' registrations (not a hand-written list), is called
// by a unit test of its feature (test/unit/slack/<feature>/*.test.ts, with a fake ack / respond / client
// and a fake request context: ./listener-env.ts). A new callback without a test fails here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEATURE_LISTENERS } from '../../../src/slack/app.ts';

/** The text of every test file of a feature's test folder. */
function testsOf(feature: string): string {
  const dir = path.join(import.meta.dirname, feature);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.test.ts') && statSync(path.join(dir, n)).isFile());
  } catch {
    return '';
  }
  return names.map((n) => readFileSync(path.join(dir, n), 'utf8')).join('\n');
}

/** Registered callbacks of each feature that no test of the feature calls. */
function untested(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(FEATURE_LISTENERS).map(([feature, registrations]) => {
      const text = testsOf(feature);
      const names = [...new Set(registrations.map((r) => r.listener.name))];
      return [feature, names.filter((name) => !new RegExp(`\\b${name}\\(`).test(text)).sort()];
    }),
  );
}

describe('listener unit tests', () => {
  it('every registered callback is named, so a test can find it', () => {
    for (const registrations of Object.values(FEATURE_LISTENERS)) {
      for (const r of registrations) expect(r.listener.name).toMatch(/^[a-z][A-Za-z]+$/);
    }
  });

  it('every registered callback has a unit test that calls it', () => {
    const none = Object.fromEntries(Object.keys(FEATURE_LISTENERS).map((feature) => [feature, []]));
    expect(untested()).toEqual(none);
  });
});
