// The one croner configuration for five-field cron as the Runbook API's scheduler reads it. The bot's
// preview (schedules/cron.ts) and the emulator's scheduler (emulator/cron.ts) both build through
// here, so a schedule fires in the emulator on exactly the days the preview shows.
import { Cron } from 'croner';

/**
 * Vixie cron's day rule (entry.c sets DOM_STAR / DOW_STAR when the field's first character is '*';
 * cron.c then ANDs the two day fields if either flag is set and ORs them otherwise):
 * - both day fields restricted (neither starts with '*'): a day matching EITHER runs;
 * - one of them starts with '*', including a step such as `*\/2`: BOTH must match.
 * croner's default ORs unless a field is exactly '*', which reads `0 0 *\/2 * MON` as "odd days or
 * Mondays"; vixie (and so the service) reads it as "odd days that are Mondays".
 */
export function dayFieldsMustBothMatch(dayOfMonth: string, dayOfWeek: string): boolean {
  return dayOfMonth.startsWith('*') || dayOfWeek.startsWith('*');
}

/**
 * A croner schedule for a five-field expression: UTC (the service fires in GMT) unless a zone is given (a
 * change-freeze window reads its cron in its own zone), vixie's day rule. Throws on invalid input.
 */
export function buildCron(expression: string, timeZone = 'UTC'): Cron {
  const [, , dayOfMonth = '*', , dayOfWeek = '*'] = expression.trim().split(/\s+/);
  return new Cron(expression.trim(), {
    timezone: timeZone,
    mode: '5-part',
    domAndDow: dayFieldsMustBothMatch(dayOfMonth, dayOfWeek),
    // Never runs a callback: only next-run maths.
    paused: true,
  });
}
