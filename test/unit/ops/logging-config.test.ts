import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import packageJson from '../../../package.json' with { type: 'json' };
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../../src/config.ts';
import { BANNER, createLogger } from '../../../src/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

describe('log lines', () => {
  it('JSON lines carry pid, hostname and version, also from child loggers', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination });
    logger.child({ component: 'api' }).info('hello');
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ pid: process.pid, hostname: hostname(), version: packageJson.version, msg: 'hello' });
  });

  it('pretty lines are readable, and the banner line stands on its own', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination, format: 'pretty' });
    logger.child({ component: 'store' }).info('store ready');
    logger.info({ ...BANNER }, 'Open http://localhost:3999 to try the bot');
    const text = lines.join('\n');
    expect(text).not.toContain('{"level"');
    expect(text).toMatch(/INFO.*\[store\] store ready/);
    expect(lines.some((l) => /^\s+➜ {2}Open http:\/\/localhost:3999 to try the bot$/.test(l))).toBe(true);
  });
});

describe('observability configuration', () => {
  it('is off by default: /metrics on PORT, no tracing, log format chosen at start', () => {
    const config = loadConfig({});
    expect(config.observe).toEqual({ metricsPort: null, tracing: null });
    expect(config.log.format).toBeNull();
  });

  it('reads METRICS_PORT, the OTLP endpoint and LOG_FORMAT', () => {
    const config = loadConfig({
      METRICS_PORT: '9464',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      LOG_FORMAT: 'json',
    });
    expect(config.observe).toEqual({
      metricsPort: 9464,
      tracing: { endpoint: 'http://collector:4318', serviceName: 'runbook-bot' },
    });
    expect(config.log.format).toBe('json');
    expect(() => loadConfig({ METRICS_PORT: 'abc', LOG_FORMAT: 'xml' })).toThrow(ConfigError);
  });

  it('.env.example documents every variable the bot reads', () => {
    const example = readFileSync(path.resolve(import.meta.dirname, '../../../.env.example'), 'utf8');
    const documented = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    for (const name of CONFIG_VARIABLES) expect(documented, name).toContain(name);
  });

  it('the README links nothing outside the repository', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
    const local = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(local.length).toBeGreaterThan(3);
    for (const target of local) {
      const resolved = path.resolve(import.meta.dirname, '../../..', target.split('#')[0]!);
      expect(resolved.startsWith(path.resolve(import.meta.dirname, '../../..') + path.sep), target).toBe(true);
      expect(existsSync(resolved), target).toBe(true);
    }
  });

  it('lists every variable it reads', () => {
    for (const name of [
      'PORT',
      'SANDBOX_PORT',
      'METRICS_PORT',
      'DATABASE_URL',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'LOG_LEVEL',
    ]) {
      expect(CONFIG_VARIABLES).toContain(name);
    }
  });
});
