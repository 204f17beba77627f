// Five-field cron as the Runbook API's scheduler reads it: minute hour day-of-month month day-of-week, in GMT.
// We validate ourselves (strictly, with one clear sentence per mistake) and let croner compute run times
// (configured once, in cron-builder.ts, shared with the emulator) and cronstrue write the English.
import cronstrue from 'cronstrue';
import { buildCron, dayFieldsMustBothMatch } from './cron-builder.ts';

export type CronCheck = { ok: true; expression: string } | { ok: false; error: string };

/** The values each field matches, plus the raw field text (vixie's day rule looks at how a field is written). */
export interface ParsedCron {
  expression: string;
  raw: [string, string, string, string, string];
  minutes: Set<number>;
  hours: Set<number>;
  daysOfMonth: Set<number>;
  months: Set<number>;
  /** 0 = Sunday; a 7 in the expression is stored as 0. */
  daysOfWeek: Set<number>;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: Record<string, number>;
  hint?: string;
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: Object.fromEntries(MONTH_NAMES.map((n, i) => [n, i + 1])),
    hint: 'use 1-12 or JAN-DEC',
  },
  {
    name: 'day-of-week',
    min: 0,
    max: 7,
    names: Object.fromEntries(DAY_NAMES.map((n, i) => [n, i])),
    hint: 'use 0-7 (0 and 7 are Sunday) or SUN-SAT',
  },
];

const FIELD_ORDER = 'minute hour day-of-month month day-of-week';

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export function validateCron(expression: string): CronCheck {
  const parsed = parseCron(expression);
  return parsed.ok ? { ok: true, expression: parsed.cron.expression } : parsed;
}

/** Parses a strict five-field expression into the sets of values each field matches. */
export function parseCron(expression: string): { ok: true; cron: ParsedCron } | { ok: false; error: string } {
  const trimmed = typeof expression === 'string' ? expression.trim() : '';
  if (trimmed.length === 0) {
    return {
      ok: false,
      error: `The schedule is empty; enter five fields (${FIELD_ORDER}), e.g. 0 5 * * * for 05:00 every day.`,
    };
  }
  if (trimmed.startsWith('@')) {
    const macro = trimmed.split(/\s+/)[0]!.toLowerCase();
    const equivalent = MACROS[macro];
    return {
      ok: false,
      error: equivalent
        ? `Shortcuts like '${macro}' are not supported; write the five fields instead, e.g. ${equivalent}.`
        : `Shortcuts like '${macro}' are not supported; write five fields (${FIELD_ORDER}), e.g. 0 5 * * *.`,
    };
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length === 6 || parts.length === 7) {
    return {
      ok: false,
      error: `This schedule has ${parts.length} fields, but seconds${parts.length === 7 ? ' and years' : ''} are not supported; use five fields: ${FIELD_ORDER}.`,
    };
  }
  if (parts.length !== 5) {
    return {
      ok: false,
      error: `This schedule has ${parts.length} field${parts.length === 1 ? '' : 's'}, but it needs exactly five: ${FIELD_ORDER}.`,
    };
  }
  const sets: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const field = parseField(FIELDS[i]!, parts[i]!);
    if (!field.ok) return field;
    sets.push(field.values);
  }
  const normalised = parts.join(' ');
  try {
    // Safety net: whatever we accept, croner must be able to schedule.
    buildCron(normalised);
  } catch (error) {
    return { ok: false, error: `This schedule could not be read (${(error as Error).message}).` };
  }
  return {
    ok: true,
    cron: {
      expression: normalised,
      raw: parts as ParsedCron['raw'],
      minutes: sets[0]!,
      hours: sets[1]!,
      daysOfMonth: sets[2]!,
      months: sets[3]!,
      daysOfWeek: sets[4]!,
    },
  };
}

/** English description, 24-hour clock, marked GMT because the service fires in GMT. Throws on invalid input. */
export function describeCron(expression: string): string {
  const check = validateCron(expression);
  if (!check.ok) throw new RangeError(check.error);
  try {
    return `${cronstrue.toString(check.expression, { use24HourTimeFormat: true, verbose: true })} (GMT)`;
  } catch {
    return `On the schedule ${check.expression} (GMT)`;
  }
}

/** The next `count` run times strictly after `from`, in UTC. Throws on invalid input. */
export function nextRuns(expression: string, count: number, from: Date): Date[] {
  const check = validateCron(expression);
  if (!check.ok) throw new RangeError(check.error);
  if (count <= 0) return [];
  return buildCron(check.expression).nextRuns(Math.floor(count), from);
}

/** "Mon 24 Nov 05:00 GMT" in `timeZone`; an unknown zone falls back to UTC. */
export function formatRunTime(date: Date, timeZone: string): string {
  const zone = resolveTimeZone(timeZone);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('hour')}:${part('minute')} ${zoneName(date, zone)}`;
}

/** `timeZone` if the runtime knows it, else 'UTC'. */
export function resolveTimeZone(timeZone: string | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

/** Plain-English warnings about expressions that are valid but probably not what the person meant. */
export function cronWarnings(expression: string): string[] {
  const parsed = parseCron(expression);
  if (!parsed.ok) return [];
  const cron = parsed.cron;
  const [minuteField, hourField, domField, monthField, dowField] = cron.raw;
  const warnings: string[] = [];

  if (cron.minutes.size === 60 && cron.hours.size === 24) {
    warnings.push(
      'This runs every minute, 1440 times a day. If that is not intended, pick an interval such as */15 * * * * (every 15 minutes).',
    );
  } else if (cron.minutes.size === 60) {
    const suggestion = ['0', hourField, domField, monthField, dowField].join(' ');
    if (cron.hours.size === 1) {
      const hour = pad([...cron.hours][0]!);
      warnings.push(
        `This runs every minute from ${hour}:00 to ${hour}:59. Did you mean ${suggestion} (once at ${hour}:00)?`,
      );
    } else {
      warnings.push(
        `This runs every minute of each matching hour (60 times an hour). Did you mean ${suggestion} (once at the start of each hour)?`,
      );
    }
  }

  const domRestricted = !domField.startsWith('*');
  const dowRestricted = !dowField.startsWith('*');
  if (!dayFieldsMustBothMatch(domField, dowField)) {
    warnings.push(
      'Both day-of-month and day-of-week are set, so this runs on days that match either one, not only on days that match both.',
    );
  }
  if (domRestricted && !dowRestricted && Math.min(...cron.daysOfMonth) > 28) {
    warnings.push(...shortMonthWarnings(cron));
  }
  const minuteStep = /^\*\/(\d+)$/.exec(minuteField);
  if (minuteStep && 60 % Number(minuteStep[1]) !== 0) {
    // e.g. */7 fires at :56 and again at :00; intervals that do not divide 60 are uneven across the hour.
    warnings.push(
      `The step in '${minuteField}' does not divide 60, so runs restart at :00 every hour and the last gap of each hour is shorter.`,
    );
  }
  return warnings;
}

function parseField(spec: FieldSpec, text: string): { ok: true; values: Set<number> } | { ok: false; error: string } {
  const values = new Set<number>();
  const span = spec.name === 'day-of-week' ? 7 : spec.max - spec.min + 1;
  const fail = (error: string) => ({ ok: false as const, error });
  for (const item of text.split(',')) {
    if (item === '') {
      return fail(
        `The ${spec.name} field '${text}' has an empty list entry; separate values with single commas, e.g. 1,15.`,
      );
    }
    const slash = item.split('/');
    if (slash.length > 2) return fail(invalidItem(spec, item));
    const [base = '', stepText] = slash;
    let step = 1;
    if (stepText !== undefined) {
      step = /^\d+$/.test(stepText) ? Number(stepText) : 0;
      if (step < 1 || step > span) {
        return fail(
          `The ${spec.name} field '${item}' has an invalid step; the number after '/' must be a whole number from 1 to ${span}.`,
        );
      }
    }
    let from: number;
    let to: number;
    if (base === '*') {
      from = spec.min;
      to = spec.name === 'day-of-week' ? 6 : spec.max;
    } else if (base.includes('-')) {
      const bounds = base.split('-');
      if (bounds.length !== 2) return fail(invalidItem(spec, item));
      const low = parseValue(spec, bounds[0]!, item);
      if (!low.ok) return low;
      const high = parseValue(spec, bounds[1]!, item);
      if (!high.ok) return high;
      if (low.value > high.value) {
        return fail(`The ${spec.name} field '${item}' is a backwards range; put the smaller value first.`);
      }
      from = low.value;
      to = high.value;
    } else {
      if (stepText !== undefined) {
        return fail(
          `The ${spec.name} field '${item}' is not valid; a step needs * or a range before the '/', e.g. */15 or 0-30/15.`,
        );
      }
      const single = parseValue(spec, base, item);
      if (!single.ok) return single;
      from = single.value;
      to = single.value;
    }
    for (let v = from; v <= to; v += step) values.add(spec.name === 'day-of-week' && v === 7 ? 0 : v);
  }
  return { ok: true, values };
}

function parseValue(
  spec: FieldSpec,
  token: string,
  item: string,
): { ok: true; value: number } | { ok: false; error: string } {
  if (/^\d+$/.test(token)) {
    const value = Number(token);
    if (value < spec.min || value > spec.max) {
      return { ok: false, error: `The ${spec.name} field '${token}' must be between ${spec.min} and ${spec.max}.` };
    }
    return { ok: true, value };
  }
  const named = spec.names?.[token.toUpperCase()];
  if (named !== undefined) return { ok: true, value: named };
  if (/^[A-Za-z]+$/.test(token)) {
    return {
      ok: false,
      error: spec.hint
        ? `The ${spec.name} field '${token}' is not recognised; ${spec.hint}.`
        : `The ${spec.name} field '${token}' must be a number between ${spec.min} and ${spec.max}, not letters.`,
    };
  }
  return { ok: false, error: invalidItem(spec, item) };
}

function invalidItem(spec: FieldSpec, item: string): string {
  return `The ${spec.name} field '${item}' is not valid; use numbers, *, ranges like 1-5, steps like */15, or lists like 1,15,30.`;
}

const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function shortMonthWarnings(cron: ParsedCron): string[] {
  const combos: Array<[number, number]> = [];
  for (const month of cron.months) {
    for (const day of cron.daysOfMonth) if (day <= DAYS_IN_MONTH[month]!) combos.push([month, day]);
  }
  const days = [...cron.daysOfMonth].sort((a, b) => a - b).join(', ');
  if (combos.length === 0) return [`This never runs: none of the selected months has day ${days}.`];
  if (combos.every(([month, day]) => month === 2 && day === 29)) {
    return ['This only runs in leap years, because 29 February exists only then.'];
  }
  const allMonthsFit = [...cron.months].every((m) =>
    [...cron.daysOfMonth].every((d) => d <= DAYS_IN_MONTH[m]! && !(m === 2 && d === 29)),
  );
  return allMonthsFit ? [] : [`Months that have no day ${days} are skipped.`];
}

function zoneName(date: Date, zone: string): string {
  if (/^(Etc\/)?(UTC|GMT|UCT|Universal|Zulu)$/i.test(zone)) return 'GMT';
  const nameIn = (locale: string) =>
    new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' })
      .formatToParts(date)
      .find((p) => p.type === 'timeZoneName')?.value ?? zone;
  // en-GB knows European abbreviations (CET, BST), en-US the American ones (EST); otherwise "GMT+5:30".
  const british = nameIn('en-GB');
  if (!/^GMT[+-]/.test(british)) return british;
  const american = nameIn('en-US');
  return /^GMT[+-]/.test(american) ? british : american;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
