// Schedule expressions: strict five-field cron (minute hour day-of-month month day-of-week),
// evaluated in UTC ("GMT" in the contract). croner does the parsing and next-run maths, configured by
// the bot's own builder (src/schedules/cron-builder.ts) so both read the day fields as vixie cron does;
// we only narrow it to what standard cron accepts so the emulator rejects what a strict service would.
import type { Cron } from 'croner';
import { buildCron } from '../schedules/cron-builder.ts';
import { invalidArgument } from './rpc-error.ts';

const NAMES = new Set(['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']);
const DAY_NAMES = new Set(['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);
const FIELD_CHARS = /^[0-9A-Za-z*,/-]+$/;

export type CronSchedule = Cron;

/** Parses a five-field expression or throws an InvalidArgument RpcError naming the field. */
export function parseCron(expression: string, field = 'schedule'): CronSchedule {
  const fail = (why: string) =>
    invalidArgument(
      `${field}: invalid cron expression "${expression}": ${why} (expected 5 fields: minute hour day-of-month month day-of-week)`,
    );
  const parts = expression.trim().split(/\s+/).filter(Boolean);
  if (parts.length !== 5) throw fail(`found ${parts.length} field${parts.length === 1 ? '' : 's'}`);
  parts.forEach((part, index) => {
    if (!FIELD_CHARS.test(part)) throw fail(`field ${index + 1} ("${part}") contains unsupported characters`);
    for (const word of part.match(/[A-Za-z]+/g) ?? []) {
      const upper = word.toUpperCase();
      const allowed = index === 3 ? NAMES.has(upper) : index === 4 ? DAY_NAMES.has(upper) : false;
      if (!allowed) throw fail(`field ${index + 1} ("${part}") has unknown name "${word}"`);
    }
  });
  try {
    return buildCron(parts.join(' '));
  } catch (error) {
    throw fail((error as Error).message.replace(/^CronPattern:\s*/, ''));
  }
}

/** First firing strictly after `afterMs`, or null when the expression never fires again. */
export function nextFireAfter(cron: CronSchedule, afterMs: number): number | null {
  const next = cron.nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}
