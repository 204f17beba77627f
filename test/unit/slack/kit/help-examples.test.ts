// Every example in /runbook help works on the demo catalog a new user tries first: the runbooks it names
// exist there, their key=value inputs are inputs of that runbook, and the proxies it names are demo proxies.
import { describe, expect, it } from 'vitest';
import { CUSTOM_RUNBOOKS, KNOWN_PROXIES, SERVICE_RUNBOOKS } from '../../../../src/emulator/catalog-seed.ts';
import { INPUT_SCHEMAS } from '../../../../src/emulator/input-schemas.ts';
import { parseCommand, SUBCOMMAND_NAMES, SUBCOMMANDS } from '../../../../src/slack/kit/parse-command.ts';

const demo = [...SERVICE_RUNBOOKS, ...CUSTOM_RUNBOOKS];
const examples = SUBCOMMAND_NAMES.flatMap((name) => SUBCOMMANDS[name].examples.map((e) => ({ name, example: e })));

function runbookOf(example: string): { runbook: string | null; values: Record<string, string>; proxy: string | null } {
  const parsed = parseCommand(example);
  if (!parsed.ok) return { runbook: null, values: {}, proxy: null };
  const c = parsed.command;
  switch (c.kind) {
    case 'show':
      return { runbook: c.runbook, values: {}, proxy: null };
    case 'run':
      return { runbook: c.runbook, values: c.values ?? {}, proxy: null };
    case 'schedules':
    case 'schedule':
    case 'executions':
      return { runbook: c.runbook, values: {}, proxy: null };
    case 'subscribe':
    case 'unsubscribe':
      return { runbook: c.runbook === 'all' ? null : c.runbook, values: {}, proxy: null };
    case 'alias-add':
      return { runbook: c.runbook, values: c.values, proxy: c.proxy };
    case 'defaults':
      return { runbook: null, values: {}, proxy: c.proxy };
    default:
      return { runbook: null, values: {}, proxy: null };
  }
}

describe('help examples', () => {
  it('name runbooks the demo catalog has, with inputs they take', () => {
    let named = 0;
    for (const { example } of examples) {
      const { runbook, values } = runbookOf(example);
      if (!runbook) continue;
      named++;
      const seed = demo.find((r) => r.name.toLowerCase() === runbook.toLowerCase());
      expect(seed, `${example}: no demo runbook is called "${runbook}"`).toBeDefined();
      const text = seed ? INPUT_SCHEMAS[seed.schema] : '';
      const schema = (text ? JSON.parse(text) : {}) as { properties?: Record<string, unknown> };
      for (const key of Object.keys(values)) {
        expect(Object.keys(schema.properties ?? {}), `${example}: "${runbook}" has no input ${key}`).toContain(key);
      }
    }
    expect(named).toBeGreaterThan(5);
  });

  it('name proxies the demo has', () => {
    for (const { example } of examples) {
      const { proxy } = runbookOf(example);
      if (proxy && proxy !== 'none') expect(Object.keys(KNOWN_PROXIES), example).toContain(proxy);
    }
  });
});
