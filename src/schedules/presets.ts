// The schedule picker's presets and their cron expressions. cronToPreset is the inverse used to prefill the
// edit form: it only recognises the exact shapes presetToCron writes (plus day names), everything else is custom.
import { validateCron } from './cron.ts';

export type SchedulePreset =
  | { kind: 'every_n_minutes'; minutes: number }
  | { kind: 'hourly'; minute: number }
  | { kind: 'daily'; hour: number; minute: number }
  | { kind: 'weekdays'; hour: number; minute: number }
  | { kind: 'weekly'; weekday: number; hour: number; minute: number }
  | { kind: 'monthly'; day: number; hour: number; minute: number }
  | { kind: 'custom'; expression: string };

/** Intervals that divide an hour evenly, so "every N minutes" really is every N minutes. */
export const EVERY_N_MINUTES_CHOICES = [5, 10, 15, 20, 30] as const;

export const PRESET_KINDS: Array<{ kind: SchedulePreset['kind']; label: string }> = [
  { kind: 'every_n_minutes', label: 'Every few minutes' },
  { kind: 'hourly', label: 'Every hour' },
  { kind: 'daily', label: 'Every day' },
  { kind: 'weekdays', label: 'Every weekday (Mon–Fri)' },
  { kind: 'weekly', label: 'Every week' },
  { kind: 'monthly', label: 'Every month' },
  { kind: 'custom', label: 'Custom cron expression' },
];

const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** The cron expression for a preset. Throws RangeError when a number is out of range (a bug in the caller). */
export function presetToCron(p: SchedulePreset): string {
  switch (p.kind) {
    case 'every_n_minutes':
      if (!(EVERY_N_MINUTES_CHOICES as readonly number[]).includes(p.minutes)) {
        throw new RangeError(`Every-N-minutes must be one of ${EVERY_N_MINUTES_CHOICES.join(', ')}.`);
      }
      return `*/${p.minutes} * * * *`;
    case 'hourly':
      return `${checked(p.minute, 0, 59, 'minute')} * * * *`;
    case 'daily':
      return `${checked(p.minute, 0, 59, 'minute')} ${checked(p.hour, 0, 23, 'hour')} * * *`;
    case 'weekdays':
      return `${checked(p.minute, 0, 59, 'minute')} ${checked(p.hour, 0, 23, 'hour')} * * 1-5`;
    case 'weekly':
      return `${checked(p.minute, 0, 59, 'minute')} ${checked(p.hour, 0, 23, 'hour')} * * ${checked(p.weekday, 0, 6, 'weekday')}`;
    case 'monthly':
      return `${checked(p.minute, 0, 59, 'minute')} ${checked(p.hour, 0, 23, 'hour')} ${checked(p.day, 1, 31, 'day')} * *`;
    case 'custom':
      return p.expression.trim().split(/\s+/).join(' ');
  }
}

/** The preset an expression corresponds to, for prefilling the edit form; anything else is custom. */
export function cronToPreset(expression: string): SchedulePreset {
  const check = validateCron(expression);
  const normalised = check.ok ? check.expression : expression.trim().split(/\s+/).join(' ');
  const custom: SchedulePreset = { kind: 'custom', expression: normalised };
  if (!check.ok) return custom;
  const [minuteField, hourField, domField, monthField, dowField] = normalised.split(' ') as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (monthField !== '*') return custom;

  const every = /^\*\/(\d+)$/.exec(minuteField);
  if (every && hourField === '*' && domField === '*' && dowField === '*') {
    const minutes = Number(every[1]);
    return (EVERY_N_MINUTES_CHOICES as readonly number[]).includes(minutes)
      ? { kind: 'every_n_minutes', minutes }
      : custom;
  }
  const minute = plainNumber(minuteField);
  if (minute === undefined) return custom;
  if (hourField === '*') return domField === '*' && dowField === '*' ? { kind: 'hourly', minute } : custom;
  const hour = plainNumber(hourField);
  if (hour === undefined) return custom;

  if (domField === '*') {
    if (dowField === '*') return { kind: 'daily', hour, minute };
    if (/^(1-5|MON-FRI)$/i.test(dowField)) return { kind: 'weekdays', hour, minute };
    const weekday = weekdayNumber(dowField);
    return weekday === undefined ? custom : { kind: 'weekly', weekday, hour, minute };
  }
  const day = plainNumber(domField);
  if (day !== undefined && dowField === '*') return { kind: 'monthly', day, hour, minute };
  return custom;
}

function checked(value: number, min: number, max: number, name: string): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`The ${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/** A single number written without leading zeros (so the round trip writes back the same text). */
function plainNumber(field: string): number | undefined {
  return /^(0|[1-9]\d*)$/.test(field) ? Number(field) : undefined;
}

function weekdayNumber(field: string): number | undefined {
  const n = plainNumber(field);
  if (n !== undefined) return n === 7 ? 0 : n;
  const index = DAY_NAMES.indexOf(field.toUpperCase());
  return index === -1 ? undefined : index;
}
