// One pino root with redaction; components take child loggers. Keys, tokens and authorization
// headers are censored wherever they appear in a logged object, and known secret values are
// scrubbed from message strings too (an error message may quote a header).

import { hostname } from 'node:os';
import type { Logger as BoltLogger, LogLevel as BoltLogLevel } from '@slack/bolt';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import packageJson from '../package.json' with { type: 'json' };

export type { Logger } from 'pino';

export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'appToken',
  '*.appToken',
  'signingSecret',
  '*.signingSecret',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-service-api-key"]',
  '*.headers["x-service-api-key"]',
  'headers["x-slack-signature"]',
  '*.headers["x-slack-signature"]',
  // What a run printed or was given, and Slack bodies that carry them: never in a log line.
  'output',
  '*.output',
  'outputs',
  '*.outputs',
  'view',
  '*.view',
  'api_key',
  '*.api_key',
  'private_key',
  '*.private_key',
];

export interface LoggerSetup {
  level: string;
  /** Secret values (API key, tokens) to scrub from any string that gets logged. */
  secrets?: Array<string | null | undefined>;
  destination?: DestinationStream;
  /** 'pretty': readable lines for a person at a terminal (sandbox); default 'json', one object a line. */
  format?: 'json' | 'pretty';
}

/** Logged with `{ banner: true }`, a line stands out in pretty output (the sandbox's "Open http://…"). */
export const BANNER = { banner: true } as const;

/** Fields on every line, so the lines of several replicas can be told apart. */
export function logBase(): Record<string, unknown> {
  return { app: 'runbook-bot', version: packageJson.version, pid: process.pid, hostname: hostname() };
}

function prettyDestination(destination: DestinationStream | undefined): DestinationStream {
  return prettyStream({
    colorize: destination === undefined ? Boolean(process.stdout.isTTY) : false,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    // pid, hostname and version stay in JSON output; a person at a terminal runs one process.
    ignore: 'pid,hostname,app,version,banner,component',
    ...(destination ? { destination } : {}),
    messageFormat: (log, messageKey, _level, { colors }) => {
      const message = String(log[messageKey] ?? '');
      const component = typeof log.component === 'string' ? `${colors.gray(`[${log.component}]`)} ` : '';
      if (log.banner === true) return `\n\n    ${colors.bold(colors.green(`➜  ${message}`))}\n`;
      return `${component}${message}`;
    },
  }) as DestinationStream;
}

export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  }
  return out;
}

export function createLogger(setup: LoggerSetup): Logger {
  const secrets = (setup.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 4);
  const options: LoggerOptions = {
    level: setup.level,
    base: logBase(),
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: {
      // Scrub known secret values from every message string and string argument.
      logMethod(args, method) {
        if (secrets.length > 0) {
          for (let i = 0; i < args.length; i++) {
            const arg = args[i];
            if (typeof arg === 'string') args[i] = scrubSecrets(arg, secrets);
            else if (arg instanceof Error) {
              args[i] = { err: { type: arg.name, message: scrubSecrets(arg.message, secrets) } };
            }
          }
        }
        method.apply(this, args as Parameters<typeof method>);
      },
    },
    serializers: {
      err: (err: unknown) => {
        const base = pino.stdSerializers.err(err as Error);
        if (secrets.length === 0) return base;
        return JSON.parse(scrubSecrets(JSON.stringify(base), secrets));
      },
    },
  };
  if (setup.format === 'pretty') return pino(options, prettyDestination(setup.destination));
  return setup.destination ? pino(options, setup.destination) : pino(options);
}

/**
 * Bolt and the Web API client log whole bodies at debug: requests (`http request body: {…}` — views,
 * messages, files, workflow outputs, so a run's output), answers (`http request result:`), acks
 * (`ack() … (body: …)`, `storedResponse: …`) and, in developer mode, every incoming payload (typed
 * form values). Such a line keeps its words and loses its body: no level ever carries one.
 */
export function withoutBodies(text: string): string {
  const labelled = /^([\s\S]*?(?:http request (?:body|result|headers)|\(body|storedResponse))\s*:[\s\S]*$/.exec(text);
  if (labelled) return `${labelled[1]}: [not logged]${labelled[1]!.endsWith('(body') ? ')' : ''}`;
  if (/^\s*[[{]/.test(text)) return '[a JSON body, not logged]';
  return text;
}

/** Bolt's Logger interface, backed by a pino child. Bodies are never logged (withoutBodies). */
export function boltLoggerAdapter(logger: Logger): BoltLogger {
  let log = logger.child({ component: 'bolt' });
  const text = (msg: unknown[]) =>
    withoutBodies(
      msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' '),
    );
  return {
    debug: (...msg) => log.debug(text(msg)),
    info: (...msg) => log.info(text(msg)),
    warn: (...msg) => log.warn(text(msg)),
    error: (...msg) => log.error(text(msg)),
    setLevel: () => {
      // The root logger's level (LOG_LEVEL) governs; Bolt may not change it.
    },
    getLevel: () => (['debug', 'info', 'warn', 'error'].includes(log.level) ? log.level : 'info') as BoltLogLevel,
    setName: (name: string) => {
      log = logger.child({ component: name });
    },
  };
}
