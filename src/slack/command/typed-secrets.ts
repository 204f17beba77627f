// A secret typed on a line of a mention (`@runbook-bot run X password=…`) is already in the channel's
// history: the "Open the form" answer must neither repeat it nor carry it in its button, and says so.
import { parseInputSchema } from '../../forms/input-schema.ts';
import { SECRET_KEY } from '../../forms/secret-schema.ts';
import { secretFieldNames } from '../../forms/secrets.ts';
import { loadRunbook } from '../../runs/run.ts';
import { visibleTo } from '../kit/access.ts';
import type { HandlerContext } from '../kit/handler-context.ts';
import { normalizeCommandText, tokenize } from '../kit/parse-command.ts';

/**
 * The typed keys that hold secrets: by the runbook's schema when `runbook` names one the person may view
 * (an id, or text that resolves to one), and by credential-like key names whatever the schema.
 */
export async function typedSecretNames(
  ctx: HandlerContext,
  runbook: { id?: string | null; text?: string | null },
  values: Readonly<Record<string, string>>,
): Promise<string[]> {
  // A blank `key=` is not given (typed-values.ts): nothing was typed to hide or rotate.
  const keys = Object.keys(values).filter((key) => (values[key] ?? '').trim() !== '');
  if (keys.length === 0) return [];
  const secret = new Set(keys.filter((key) => SECRET_KEY.test(key)));
  try {
    let id = runbook.id ?? null;
    if (!id && runbook.text) {
      const resolution = await (await visibleTo(ctx)).resolve(runbook.text);
      if (resolution.kind === 'match') id = resolution.runbook.id;
    }
    if (id) {
      const spec = parseInputSchema((await loadRunbook(ctx.deps, id)).inputSchema);
      for (const name of secretFieldNames(spec)) if (keys.includes(name)) secret.add(name);
    }
  } catch {
    // The form judges the runbook when it opens; here only the key names decide.
  }
  return keys.filter((key) => secret.has(key));
}

/** The command line without the `name=value` tokens of `names`, requoted so that it parses the same. */
export function withoutValues(text: string, names: readonly string[]): string {
  if (names.length === 0) return text;
  const kept = tokenize(normalizeCommandText(text)).filter((token) => {
    const eq = token.indexOf('=');
    return eq <= 0 || !names.includes(token.slice(0, eq));
  });
  return kept.map(requote).join(' ');
}

function requote(token: string): string {
  if (!/[\s"']/.test(token)) return token;
  const pair = /^([A-Za-z_][A-Za-z0-9_.-]*=|--[a-z]+=)?(.*)$/s.exec(token)!;
  const head = pair[1] ?? '';
  const body = pair[2] ?? '';
  const quote = body.includes('"') ? "'" : '"';
  return `${head}${quote}${body}${quote}`;
}
