// Where a secret must never be: the raw store (every row of every table, SQLite or a Postgres schema), what
// the fake Slack received, the log lines. A secret counts as found in clear, or base64-, base64url- or
// hex-encoded — also inside a longer encoded value (base64 at each of the three byte alignments).
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { withPostgres } from './test-database.ts';

/** The strings that give `secret` away: itself, hex, and base64/base64url at every alignment. */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = new Set([secret, bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]);
  for (let pad = 0; pad < 3; pad++) {
    // Encoded after `pad` other bytes: the first and last 4 characters may mix with its neighbours.
    const aligned = Buffer.concat([Buffer.alloc(pad, 0x20), bytes, Buffer.alloc(3, 0x20)]);
    for (const encoding of ['base64', 'base64url'] as const) {
      const inner = aligned.toString(encoding).slice(4, -8);
      if (inner.length >= 12) forms.add(inner);
    }
  }
  return [...forms];
}

/** Which secrets (by a label) `text` gives away, and how. */
export function leaksIn(text: string, secrets: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [label, secret] of Object.entries(secrets)) {
    for (const form of encodedForms(secret)) if (text.includes(form)) found.push(`${label} as ${form.slice(0, 6)}…`);
  }
  return found;
}

/** Every row of every table of the SQLite store under `dataDir`, as text. */
export function sqliteStoreText(dataDir: string): string {
  const raw = new DatabaseSync(path.join(dataDir, 'runbook-bot.sqlite'), { readOnly: true });
  try {
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    return tables.map(({ name }) => JSON.stringify(raw.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
  } finally {
    raw.close();
  }
}

/** Every row of every table of the Postgres store in `schema`, as text. */
export function postgresStoreText(schema: string): Promise<string> {
  return withPostgres(async (c) => {
    const tables = await c.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    let text = '';
    for (const { table_name } of tables.rows) {
      text += `${JSON.stringify((await c.query(`SELECT * FROM "${schema}"."${table_name}"`)).rows)}\n`;
    }
    return text;
  });
}
