// The one-line part of the /runbook grammar: `key=value` inputs, `--now`, and the words of the
// alias and defaults subcommands. Works on the tokens parse-command.ts already split (quotes and
// Slack's escaping handled there) and returns plain data; parse-command turns it into commands.

/** A key=value token: an input name, '=', and the rest (which may be empty or hold '=' itself). */
const VALUE_TOKEN = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/s;
/** Alias names: short, no spaces, safe to show in code spans. */
export const ALIAS_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/i;
/** A channel as Slack sends it in mentions and escaped commands (`<#C123|name>`), or a bare id. */
const CHANNEL_REF = /^(?:<#([CGD][A-Z0-9]{2,})(?:\|[^>]*)?>|([CGD][A-Z0-9]{2,}))$/;
/**
 * A channel by name, `#deploys`: what Slack sends for a channel picked in a slash command while the
 * manifest's should_escape is false. The handler turns it into an id (channel-names.ts).
 */
const CHANNEL_NAME = /^#([a-z0-9][a-z0-9._-]{0,79})$/i;

export type LineFlag = 'now' | 'proxy' | 'to' | 'replace';

export interface RunLine {
  /** The words that are not values or flags, joined (a runbook name or id, or an alias name). */
  words: string[];
  values: Record<string, string>;
  now: boolean;
  /** `--replace` (alias add): an alias of the same name is replaced instead of refused. */
  replace: boolean;
  proxy: string | null;
  /** A channel id, a `#name` still to be looked up (channel-names.ts), or 'none' (clears). */
  to: string | null;
}

export type LineResult = { ok: true; line: RunLine } | { ok: false; error: string };

/** Channel id from `<#C…|name>` or `C…`; null when the text is not a channel reference. */
export function channelRef(text: string): string | null {
  const m = CHANNEL_REF.exec(text.trim());
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** `#name` (lower-cased, with its #) when the text names a channel that way; null otherwise. */
export function channelName(text: string): string | null {
  const m = CHANNEL_NAME.exec(text.trim());
  return m ? `#${m[1]!.toLowerCase()}` : null;
}

/**
 * Splits tokens into words, `key=value` inputs and the allowed flags. Two values given for one key or flag, an
 * unknown flag or a flag without its value is an error sentence.
 */
export function readRunLine(tokens: readonly string[], allowed: readonly LineFlag[]): LineResult {
  const line: RunLine = { words: [], values: {}, now: false, replace: false, proxy: null, to: null };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startsWith('--') && token.length > 2) {
      const eq = token.indexOf('=');
      const name = (eq === -1 ? token.slice(2) : token.slice(2, eq)).toLowerCase();
      if (!(allowed as readonly string[]).includes(name)) {
        const options = allowed.map((f) => `\`--${f}\``).join(', ');
        return {
          ok: false,
          error: `\`--${name}\` is not an option here${options ? `; the options are ${options}` : ''}.`,
        };
      }
      if (name === 'now' || name === 'replace') {
        if (eq !== -1) return { ok: false, error: `\`--${name}\` takes no value.` };
        line[name] = true;
        continue;
      }
      const value = eq === -1 ? tokens[++i] : token.slice(eq + 1);
      if (value === undefined || value === '' || value.startsWith('--')) {
        return { ok: false, error: `\`--${name}\` needs a value.` };
      }
      const twice = { ok: false as const, error: `\`--${name}\` is given twice.` };
      if (name === 'proxy') {
        if (line.proxy !== null && line.proxy !== value) return twice;
        line.proxy = value;
      } else {
        const channel = value.toLowerCase() === 'none' ? 'none' : (channelRef(value) ?? channelName(value));
        if (!channel) {
          return {
            ok: false,
            error: `\`--to\` needs a channel: \`#name\`, a channel link or its id, not \`${value}\`.`,
          };
        }
        if (line.to !== null && line.to !== channel) return twice;
        line.to = channel;
      }
      continue;
    }
    const m = VALUE_TOKEN.exec(token);
    if (m) {
      const key = m[1]!;
      // As a flag: the same value twice is no contradiction; two values are refused, never settled by the last.
      if (Object.hasOwn(line.values, key) && line.values[key] !== m[2]!) {
        return { ok: false, error: `\`${key}\` is given twice.` };
      }
      line.values[key] = m[2]!;
      continue;
    }
    line.words.push(token);
  }
  return { ok: true, line };
}

/** How an alias is used: `/runbook <alias> [key=value …] [--now]`. Null when it cannot be one. */
export function readAliasUse(
  tokens: readonly string[],
): { name: string; values: Record<string, string>; now: boolean } | null {
  const [name, ...rest] = tokens;
  if (!name || !ALIAS_NAME.test(name)) return null;
  const read = readRunLine(rest, ['now']);
  if (!read.ok || read.line.words.length > 0) return null;
  return { name: name.toLowerCase(), values: read.line.values, now: read.line.now };
}
