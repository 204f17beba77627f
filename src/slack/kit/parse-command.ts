// The /runbook grammar: one table of subcommands (also the source of the help text), a tokenizer
// that copes with what Slack clients send (smart quotes, HTML-escaped &, <, >), and a parser that
// answers either a typed command or an error with the subcommand's help and a "did you mean".
// The one-line parts (key=value inputs, --now, alias and defaults words) are read by run-line.ts.

import { distance } from 'fastest-levenshtein';
import type { ForecastWindow } from '../../schedules/forecast.ts';
import { ALIAS_NAME, readAliasUse, readRunLine } from './run-line.ts';

export type ListScope = 'all' | 'service' | 'custom';
export type StatusFilter = 'succeeded' | 'failed' | 'running';
export type LastFilter = 'month' | 'year';

export type ParsedCommand =
  | { kind: 'help'; topic: SubcommandName | null }
  | { kind: 'list'; query: string; scope: ListScope; category: string | null }
  | { kind: 'show'; runbook: string }
  | { kind: 'health'; runbook: string | null; here: boolean }
  /** `values` and `now` only when typed: a one-line run. */
  | { kind: 'run'; runbook: string | null; values?: Record<string, string>; now?: boolean }
  | { kind: 'schedules'; runbook: string | null; next: ForecastWindow | null }
  | { kind: 'schedule'; runbook: string | null }
  | { kind: 'executions'; runbook: string | null; status: StatusFilter | null; last: LastFilter | null }
  | { kind: 'status'; executionId: string }
  | { kind: 'audit'; count: number }
  | { kind: 'freezes' }
  | { kind: 'freeze-break'; runbook: string; reason: string }
  | { kind: 'subscribe'; runbook: string; failuresOnly: boolean }
  | { kind: 'unsubscribe'; runbook: string }
  | { kind: 'subscriptions' }
  | { kind: 'watch'; executionId: string }
  | {
      kind: 'alias-add';
      alias: string;
      runbook: string;
      values: Record<string, string>;
      proxy: string | null;
      to: string | null;
      /** `--replace`: replace an alias of that name (else adding over one is refused). */
      replace?: boolean;
    }
  | { kind: 'alias-list' }
  | { kind: 'alias-remove'; alias: string }
  | { kind: 'defaults'; proxy: string | null; to: string | null; clear: boolean };

/** `/runbook <alias> [key=value …] [--now]`: what an unknown subcommand may be instead. */
export interface AliasUse {
  name: string;
  values: Record<string, string>;
  now: boolean;
}

export type ParseResult =
  | { ok: true; command: ParsedCommand }
  | {
      ok: false;
      error: string;
      topic: SubcommandName | null;
      suggestion: string | null;
      /** Set when the unknown word could be a saved alias of the channel (the handler looks it up). */
      alias?: AliasUse;
    };

interface FlagSpec {
  name: string;
  /** Allowed values; null → boolean flag; [] → any value. */
  values: readonly string[] | null;
  description: string;
  /** What each allowed value means, said when a value is not one of them ("`24h` (the next 24 hours)"). */
  valueHelp?: Readonly<Record<string, string>>;
}

/** The missing positional argument in words, with its article: "an execution id", "a runbook". */
function missingArgument(positionalName: string | undefined): string {
  if (positionalName === 'executionId') return 'an execution id';
  if (!positionalName) return 'an argument';
  return /^[aeiou]/i.test(positionalName) ? `an ${positionalName}` : `a ${positionalName}`;
}

interface SubcommandSpec {
  usage: string;
  description: string;
  examples: string[];
  flags: FlagSpec[];
  positional: 'none' | 'optional' | 'required';
  positionalName?: string;
}

export const SUBCOMMANDS = {
  help: {
    usage: 'help [subcommand]',
    description: 'Show what each subcommand does, or the details of one.',
    examples: ['help', 'help run'],
    flags: [],
    positional: 'optional',
    positionalName: 'subcommand',
  },
  list: {
    usage: 'list [words] [--service|--custom] [--category NAME]',
    description: 'Browse and search the runbook catalog, page by page.',
    examples: ['list', 'list kubernetes restart', 'list --custom', 'list --category sre'],
    flags: [
      { name: 'service', values: null, description: 'only runbooks provided by the service' },
      { name: 'custom', values: null, description: 'only your custom runbooks' },
      { name: 'category', values: [], description: 'only runbooks in this category' },
    ],
    positional: 'optional',
    positionalName: 'words',
  },
  show: {
    usage: 'show <runbook>',
    description: 'Details of one runbook: inputs, environments, last run, approval.',
    examples: ['show "Restart Kubernetes Deployment"', 'show "Rotate IAM Access Keys"'],
    flags: [],
    positional: 'required',
    positionalName: 'runbook',
  },
  run: {
    usage: 'run [runbook] [key=value …] [--now]',
    description:
      'Open the run form of a runbook (without a name: pick one as you type), prefilled with any key=value inputs; --now runs at once after a confirmation when every value is valid and no approval is needed.',
    examples: [
      'run',
      'run "Drain Kubernetes Node"',
      'run "Restart Kubernetes Deployment" namespace=prod',
      'run "Scale Kubernetes Deployment" namespace=prod deployment=web replicas=3 --now',
    ],
    flags: [
      {
        name: 'now',
        values: null,
        description: 'skip the form: confirm and run (refused when a value is invalid or approval is needed)',
      },
    ],
    positional: 'optional',
    positionalName: 'runbook',
  },
  schedules: {
    usage: 'schedules [runbook] [--next 24h|7d]',
    description:
      'List schedules, with Edit, Pause (or Resume), Skip next run, Delete and Run now on each; --next: every run due in the next 24 hours or 7 days (of that runbook, when named), in your time zone.',
    examples: ['schedules', 'schedules "Postgres Vacuum Analyze"', 'schedules --next 24h'],
    flags: [
      {
        name: 'next',
        values: ['24h', '7d'],
        description: 'every run due in that window (a forecast)',
        valueHelp: { '24h': 'the next 24 hours', '7d': 'the next 7 days' },
      },
    ],
    positional: 'optional',
    positionalName: 'runbook',
  },
  schedule: {
    usage: 'schedule [runbook]',
    description: 'Create a cron schedule for a runbook, with a preview of the next runs.',
    examples: ['schedule "Find Unattached EBS Volumes"'],
    flags: [],
    positional: 'optional',
    positionalName: 'runbook',
  },
  executions: {
    usage: 'executions [runbook] [--status succeeded|failed|running] [--last month|year]',
    description: 'Recent executions with status, who ran them, start and duration.',
    examples: ['executions', 'executions --status failed --last month', 'executions "Drain Kubernetes Node"'],
    flags: [
      { name: 'status', values: ['succeeded', 'failed', 'running'], description: 'only executions in this state' },
      { name: 'last', values: ['month', 'year'], description: 'only the last month or year' },
    ],
    positional: 'optional',
    positionalName: 'runbook',
  },
  health: {
    usage: 'health [runbook] [--here]',
    description:
      "A runbook's last 30 days: runs, success rate, median and p95 duration, the last 10 outcomes and the most common failure reasons, and a chart of runs per day by outcome with their median duration, sent to your DM with the bot (--here: posted in this channel for everyone); without a runbook, the ones failing most.",
    examples: ['health', 'health "Restart Kubernetes Deployment"', 'health "Rotate IAM Access Keys" --here'],
    flags: [
      {
        name: 'here',
        values: null,
        description:
          'post the numbers and the chart in this channel (default: only you see them, the chart in your DM)',
      },
    ],
    positional: 'optional',
    positionalName: 'runbook',
  },
  status: {
    usage: 'status <executionId>',
    description: 'One execution: inputs, status, timings, reason and output.',
    examples: ['status 3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a'],
    flags: [],
    positional: 'required',
    positionalName: 'executionId',
  },
  audit: {
    usage: 'audit [n]',
    description: 'The last n actions (default 20, at most 100): who did what, where, and how it ended.',
    examples: ['audit', 'audit 50'],
    flags: [],
    positional: 'optional',
    positionalName: 'n',
  },
  freezes: {
    usage: 'freezes | freezes break <runbook> --reason TEXT',
    description:
      'The change freezes of the policy (on now until when, or next); inside one, runs are refused and covered schedules paused. `break`: an approver lets themselves start one run inside the freeze, with a reason (audited).',
    examples: ['freezes', 'freezes break "Restart Kubernetes Deployment" --reason "INC-4711: prod is down"'],
    flags: [{ name: 'reason', values: [], description: 'why the freeze must be broken (audited)' }],
    positional: 'optional',
    positionalName: 'break',
  },
  subscribe: {
    usage: 'subscribe <runbook|all> [--failures]',
    description: 'Post the result of every run of a runbook (or of all runbooks) in this channel, scheduled ones too.',
    examples: ['subscribe "Postgres Vacuum Analyze"', 'subscribe all --failures'],
    flags: [{ name: 'failures', values: null, description: 'only failed runs' }],
    positional: 'required',
    positionalName: 'runbook',
  },
  unsubscribe: {
    usage: 'unsubscribe <runbook|all>',
    description: 'Stop posting results of a runbook (or of all runbooks) in this channel.',
    examples: ['unsubscribe "Postgres Vacuum Analyze"', 'unsubscribe all'],
    flags: [],
    positional: 'required',
    positionalName: 'runbook',
  },
  subscriptions: {
    usage: 'subscriptions',
    description: "This channel's subscriptions, with an Unsubscribe button on each.",
    examples: ['subscriptions'],
    flags: [],
    positional: 'none',
  },
  watch: {
    usage: 'watch <executionId>',
    description: 'Follow an execution started elsewhere: a live message here that turns into its result.',
    examples: ['watch 3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a'],
    flags: [],
    positional: 'required',
    positionalName: 'executionId',
  },
  alias: {
    usage:
      'alias add <alias> <runbook> [key=value …] [--proxy ID] [--to #channel] [--replace] | alias list | alias remove <alias>',
    description:
      "Saved runs for this channel: `/runbook <alias> [key=value …] [--now]` then opens the runbook's form prefilled (or confirms and runs with --now).",
    examples: [
      'alias add scale-web "Scale Kubernetes Deployment" namespace=prod deployment=web --to #deploys',
      'alias list',
      'alias remove scale-web',
      'scale-web replicas=5',
    ],
    flags: [
      { name: 'proxy', values: [], description: 'the proxy that runs it' },
      { name: 'to', values: [], description: 'the channel its results go to' },
      {
        name: 'replace',
        values: null,
        description: 'replace an alias of the same name (else adding over it is refused)',
      },
    ],
    positional: 'required',
    positionalName: 'add|list|remove',
  },
  defaults: {
    usage: 'defaults [--proxy ID|none] [--to #channel|none] | defaults clear',
    description: "This channel's run defaults (proxy, where results go), preselected in run forms opened here.",
    examples: ['defaults', 'defaults --proxy proxy-staging --to #deploys', 'defaults --to none', 'defaults clear'],
    flags: [
      { name: 'proxy', values: [], description: 'default proxy (none clears it)' },
      { name: 'to', values: [], description: 'default result channel (none clears it)' },
    ],
    positional: 'optional',
    positionalName: 'clear',
  },
} as const satisfies Record<string, SubcommandSpec>;

export type SubcommandName = keyof typeof SUBCOMMANDS;
export const SUBCOMMAND_NAMES = Object.keys(SUBCOMMANDS) as SubcommandName[];

const MAX_COMMAND_LENGTH = 2000;

/** Slack sends &, <, > escaped in command text; clients turn quotes into smart quotes. */
export function normalizeCommandText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[\u201C\u201D\u201E\u00AB\u00BB]/g, '"')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u2013\u2014]/g, '--')
    .trim();
}

/**
 * `text` as one argument of a command the bot suggests, so that typed back it parses to `text` again:
 * quoted when it has spaces or quotes, in single quotes when it holds a double one.
 */
export function commandArgument(text: string): string {
  if (!/[\s"']/.test(text)) return text;
  return text.includes('"') && !text.includes("'") ? `'${text}'` : `"${text}"`;
}

/**
 * An execution id as people paste it from the bot's own messages: in a code span (`…`) or <…>, or a UUID
 * ending a sentence (a full stop or comma after it). Anything else is taken as typed (ids are opaque).
 */
function pastedId(text: string): string {
  const unwrapped = /^(?:`+([^`]+)`+|<([^<>]+)>)[.,;:!?)]*$/.exec(text);
  const id = unwrapped ? (unwrapped[1] ?? unwrapped[2] ?? text) : text;
  const bare = id.replace(/[.,;:!?)]+$/, '');
  return /^[0-9a-f-]+$/i.test(bare) ? bare : id;
}

/** How a suggested command names a runbook: by name, or by id when the name is empty or long. */
export function runbookArgument(runbook: { id: string; name?: string | null }): string {
  return runbook.name && runbook.name.length <= 150 ? runbook.name : runbook.id;
}

/** Splits on whitespace, honouring "double" and 'single' quotes. */
export function tokenize(text: string): string[] {
  return scan(text).tokens;
}

function scan(text: string): { tokens: string[]; unclosedQuote: boolean } {
  const tokens: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let inToken = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
      continue;
    }
    // A quote opens only at the start of a word (or after `--flag=`), so "alice's" stays one word.
    if ((ch === '"' || ch === "'") && (!inToken || current.endsWith('='))) {
      quote = ch;
      inToken = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
      continue;
    }
    current += ch;
    inToken = true;
  }
  if (inToken) tokens.push(current);
  return { tokens, unclosedQuote: quote !== null };
}

/** The closest candidate within a small edit distance (or sharing a prefix), else null. */
export function didYouMean(input: string, candidates: readonly string[]): string | null {
  const word = input.toLowerCase();
  let best: string | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const score = c.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, c);
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  const threshold = Math.max(2, Math.floor(word.length / 3));
  // A word sharing no character with the candidate is no near miss (`3x` is not a typo of `7d`).
  const shares = best !== null && [...word].some((ch) => best!.toLowerCase().includes(ch));
  return best !== null && bestScore <= threshold && shares ? best : null;
}

export function parseCommand(rawText: string): ParseResult {
  if (rawText.length > MAX_COMMAND_LENGTH) {
    return {
      ok: false,
      error: `That command is ${rawText.length} characters long; the limit is ${MAX_COMMAND_LENGTH}.`,
      topic: null,
      suggestion: null,
    };
  }
  const text = normalizeCommandText(rawText);
  const { tokens, unclosedQuote } = scan(text);
  if (unclosedQuote) {
    return { ok: false, error: 'That command has a quote that is never closed.', topic: null, suggestion: null };
  }
  if (tokens.length === 0) return { ok: true, command: { kind: 'help', topic: null } };

  const name = tokens[0]!.toLowerCase();
  if (!Object.hasOwn(SUBCOMMANDS, name)) {
    const suggestion = didYouMean(name, SUBCOMMAND_NAMES);
    const alias = readAliasUse(tokens);
    return {
      ok: false,
      error: `\`${name}\` is neither a /runbook subcommand nor an alias in this channel.`,
      topic: suggestion as SubcommandName | null,
      suggestion,
      ...(alias ? { alias } : {}),
    };
  }
  const sub = name as SubcommandName;
  if (sub === 'run' || sub === 'alias' || sub === 'defaults') return parseLineCommand(sub, tokens.slice(1));
  const spec: SubcommandSpec = SUBCOMMANDS[sub];

  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  const rest = tokens.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (!token.startsWith('--') || token === '--') {
      positional.push(token);
      continue;
    }
    const [flagName, inlineValue] = splitFlag(token.slice(2));
    const flag = spec.flags.find((f) => f.name === flagName.toLowerCase());
    if (!flag) {
      const suggestion = didYouMean(
        flagName,
        spec.flags.map((f) => f.name),
      );
      return {
        ok: false,
        error:
          spec.flags.length === 0
            ? `\`${sub}\` takes no options, but got \`--${flagName}\`.`
            : `\`--${flagName}\` is not an option of \`${sub}\`.`,
        topic: sub,
        suggestion: suggestion ? `--${suggestion}` : null,
      };
    }
    if (flag.values === null) {
      if (inlineValue !== null) {
        return { ok: false, error: `\`--${flag.name}\` takes no value.`, topic: sub, suggestion: null };
      }
      flags.set(flag.name, true);
      continue;
    }
    const value = inlineValue ?? rest[++i];
    if (value === undefined || value === '' || value.startsWith('--')) {
      return { ok: false, error: `\`--${flag.name}\` needs a value.`, topic: sub, suggestion: null };
    }
    if (flag.values.length > 0 && !flag.values.includes(value.toLowerCase())) {
      const suggestion = didYouMean(value, flag.values);
      return {
        ok: false,
        error: flag.valueHelp
          ? `\`--${flag.name}\` takes ${flag.values.map((v) => `\`${v}\` (${flag.valueHelp?.[v]})`).join(' or ')}; \`${value}\` is not one of them.`
          : `\`--${flag.name}\` must be one of ${flag.values.map((v) => `\`${v}\``).join(', ')}, not \`${value}\`.`,
        topic: sub,
        suggestion: suggestion ? `--${flag.name} ${suggestion}` : null,
      };
    }
    const given = flag.values.length > 0 ? value.toLowerCase() : value;
    const before = flags.get(flag.name);
    if (before !== undefined && before !== given) {
      return { ok: false, error: `\`--${flag.name}\` is given twice.`, topic: sub, suggestion: null };
    }
    flags.set(flag.name, given);
  }

  const joined = positional.join(' ').trim();
  if (spec.positional === 'required' && joined === '') {
    return {
      ok: false,
      error: `\`${sub}\` needs ${missingArgument(spec.positionalName)}.`,
      topic: sub,
      suggestion: null,
    };
  }
  if (spec.positional === 'none' && joined !== '') {
    return { ok: false, error: `\`${sub}\` takes no arguments.`, topic: sub, suggestion: null };
  }
  return buildCommand(sub, joined, flags);
}

/** run, alias and defaults: words, key=value inputs and their own flags (see run-line.ts). */
function parseLineCommand(sub: 'run' | 'alias' | 'defaults', rest: string[]): ParseResult {
  const fail = (error: string): ParseResult => ({ ok: false, error, topic: sub, suggestion: null });
  if (sub === 'run') {
    const read = readRunLine(rest, ['now']);
    if (!read.ok) return fail(read.error);
    const { words, values, now } = read.line;
    const runbook = words.join(' ').trim() || null;
    const typed = Object.keys(values).length > 0;
    if ((typed || now) && !runbook) return fail('Name the runbook before its inputs: `run <runbook> key=value …`.');
    return { ok: true, command: { kind: 'run', runbook, ...(typed ? { values } : {}), ...(now ? { now } : {}) } };
  }
  if (sub === 'defaults') {
    const read = readRunLine(rest, ['proxy', 'to']);
    if (!read.ok) return fail(read.error);
    const { words, values, proxy, to } = read.line;
    const clear = words.length === 1 && words[0]!.toLowerCase() === 'clear';
    if ((words.length > 0 && !clear) || Object.keys(values).length > 0 || (clear && (proxy || to))) {
      return fail('`defaults` takes `--proxy` and `--to`, or `clear` alone.');
    }
    return { ok: true, command: { kind: 'defaults', proxy, to, clear } };
  }
  const verb = rest[0]?.toLowerCase();
  if (verb === 'list') {
    return rest.length === 1 ? { ok: true, command: { kind: 'alias-list' } } : fail('`alias list` takes no arguments.');
  }
  if (verb === 'remove') {
    const alias = rest[1];
    if (!alias || rest.length > 2 || !ALIAS_NAME.test(alias)) return fail('`alias remove` takes one alias name.');
    return { ok: true, command: { kind: 'alias-remove', alias: alias.toLowerCase() } };
  }
  if (verb !== 'add') {
    const suggestion = verb ? didYouMean(verb, ['add', 'list', 'remove']) : null;
    return {
      ok: false,
      error: '`alias` is followed by `add`, `list` or `remove`.',
      topic: 'alias',
      suggestion: suggestion ? `alias ${suggestion}` : null,
    };
  }
  const read = readRunLine(rest.slice(1), ['proxy', 'to', 'replace']);
  if (!read.ok) return fail(read.error);
  const [alias, ...runbookWords] = read.line.words;
  if (!alias || !ALIAS_NAME.test(alias)) {
    return fail('An alias name is letters, digits, - and _ (up to 40), e.g. `restart-prod`.');
  }
  if (Object.hasOwn(SUBCOMMANDS, alias.toLowerCase()))
    return fail(`\`${alias}\` is a subcommand; pick another alias name.`);
  if (runbookWords.length === 0) return fail('`alias add` needs the runbook after the alias name.');
  if (read.line.to === 'none') return fail('`--to` needs a channel here.');
  return {
    ok: true,
    command: {
      kind: 'alias-add',
      alias: alias.toLowerCase(),
      runbook: runbookWords.join(' '),
      values: read.line.values,
      proxy: read.line.proxy,
      to: read.line.to,
      ...(read.line.replace ? { replace: true } : {}),
    },
  };
}

function splitFlag(body: string): [string, string | null] {
  const eq = body.indexOf('=');
  return eq === -1 ? [body, null] : [body.slice(0, eq), body.slice(eq + 1)];
}

function buildCommand(sub: SubcommandName, arg: string, flags: Map<string, string | true>): ParseResult {
  const orNull = (v: string) => (v === '' ? null : v);
  switch (sub) {
    case 'help': {
      if (arg === '') return { ok: true, command: { kind: 'help', topic: null } };
      const topic = arg.toLowerCase();
      if (Object.hasOwn(SUBCOMMANDS, topic))
        return { ok: true, command: { kind: 'help', topic: topic as SubcommandName } };
      const suggestion = didYouMean(topic, SUBCOMMAND_NAMES);
      return { ok: false, error: `There is no help topic \`${arg}\`.`, topic: null, suggestion };
    }
    case 'list': {
      if (flags.has('service') && flags.has('custom')) {
        return { ok: false, error: 'Use either `--service` or `--custom`, not both.', topic: 'list', suggestion: null };
      }
      const scope: ListScope = flags.has('service') ? 'service' : flags.has('custom') ? 'custom' : 'all';
      const category = flags.get('category');
      return {
        ok: true,
        command: { kind: 'list', query: arg, scope, category: typeof category === 'string' ? category : null },
      };
    }
    case 'show':
      return { ok: true, command: { kind: 'show', runbook: arg } };
    case 'health':
      if (flags.has('here') && !orNull(arg)) {
        return {
          ok: false,
          error:
            '`--here` posts one runbook\'s health and chart in this channel: name the runbook, e.g. `/runbook health "Rotate IAM Access Keys" --here`.',
          topic: 'health',
          suggestion: null,
        };
      }
      return { ok: true, command: { kind: 'health', runbook: orNull(arg), here: flags.has('here') } };
    case 'run':
    case 'alias':
    case 'defaults':
      return parseLineCommand(sub, arg === '' ? [] : [arg]); // not reached: parsed before the flag loop
    case 'schedules': {
      const next = flags.get('next');
      return {
        ok: true,
        command: {
          kind: 'schedules',
          runbook: orNull(arg),
          next: typeof next === 'string' ? (next as ForecastWindow) : null,
        },
      };
    }
    case 'schedule':
      return { ok: true, command: { kind: 'schedule', runbook: orNull(arg) } };
    case 'executions': {
      const status = flags.get('status');
      const last = flags.get('last');
      return {
        ok: true,
        command: {
          kind: 'executions',
          runbook: orNull(arg),
          status: typeof status === 'string' ? (status as StatusFilter) : null,
          last: typeof last === 'string' ? (last as LastFilter) : null,
        },
      };
    }
    case 'audit': {
      if (arg === '') return { ok: true, command: { kind: 'audit', count: 20 } };
      const count = Number(arg);
      if (!Number.isInteger(count) || count < 1 || count > 100) {
        return { ok: false, error: '`audit` takes a number from 1 to 100.', topic: 'audit', suggestion: null };
      }
      return { ok: true, command: { kind: 'audit', count } };
    }
    case 'status':
      if (/\s/.test(arg)) {
        return { ok: false, error: '`status` takes one execution id.', topic: 'status', suggestion: null };
      }
      return { ok: true, command: { kind: 'status', executionId: pastedId(arg) } };
    case 'subscribe':
      return { ok: true, command: { kind: 'subscribe', runbook: arg, failuresOnly: flags.has('failures') } };
    case 'unsubscribe':
      return { ok: true, command: { kind: 'unsubscribe', runbook: arg } };
    case 'subscriptions':
      return { ok: true, command: { kind: 'subscriptions' } };
    case 'freezes': {
      const reason = flags.get('reason');
      if (arg === '' && reason === undefined) return { ok: true, command: { kind: 'freezes' } };
      const [verb = '', ...words] = arg.split(' ');
      const refuse = (error: string, suggestion: string | null = null): ParseResult => ({
        ok: false,
        error,
        topic: 'freezes',
        suggestion,
      });
      if (verb.toLowerCase() !== 'break') {
        const close = verb ? didYouMean(verb, ['break']) : null;
        return refuse(
          '`freezes` alone lists them; to break one: `freezes break <runbook> --reason "why"`.',
          close ? `freezes ${close}` : null,
        );
      }
      if (words.join(' ').trim() === '') return refuse('Name the runbook: `freezes break <runbook> --reason "why"`.');
      if (typeof reason !== 'string') return refuse('Say why the freeze must be broken: `--reason "why"` (audited).');
      return { ok: true, command: { kind: 'freeze-break', runbook: words.join(' ').trim(), reason } };
    }
    case 'watch':
      if (/\s/.test(arg)) {
        return { ok: false, error: '`watch` takes one execution id.', topic: 'watch', suggestion: null };
      }
      return { ok: true, command: { kind: 'watch', executionId: pastedId(arg) } };
  }
}
