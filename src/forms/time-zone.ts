// Date-times as the person picked them: Slack's datetimepicker works in the person's Slack time zone
// and sends an instant (Unix seconds); the form says which zone that is, and the value is written as
// ISO 8601 with that zone's offset ("2026-12-01T02:00:00+01:00"), so the API, the cards and the person
// all read the same wall time. Pure (Intl only).

/** The zone's offset from UTC at that instant, in minutes (+60 for Berlin in winter); null: unknown zone. */
export function offsetMinutes(epochMs: number, timeZone: string): number | null {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(new Date(epochMs));
  } catch {
    return null;
  }
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return Math.round((wall - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** ISO 8601 of an instant in `timeZone`, with its offset; UTC ("…Z") when the zone is unknown or absent. */
export function isoInTimeZone(epochSeconds: number, timeZone: string | null | undefined): string {
  const ms = Math.floor(epochSeconds) * 1000;
  const offset = timeZone ? offsetMinutes(ms, timeZone) : null;
  if (offset === null) return new Date(ms).toISOString().replace('.000Z', 'Z');
  const wall = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A zone as the form names it under its date-time pickers: "Central European Time (Europe/Berlin)". */
export function zoneName(timeZone: { id: string; label: string }): string {
  return timeZone.label && timeZone.label !== timeZone.id ? `${timeZone.label} (${timeZone.id})` : timeZone.id;
}

/** A date and time without an offset, as typed on a line: "2026-12-01 10:00", "2026-12-01T10:00:30". */
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/i;

/**
 * A date-time typed without an offset, read as the form reads a picked one: a wall time in the person's
 * Slack time zone (UTC when unknown), written as ISO 8601 with that zone's offset. Null when the text is
 * not such a wall time (it carries its own offset or Z, or is no date-time): it is then kept as typed.
 */
export function wallTimeInZone(text: string, timeZone: string | null | undefined): string | null {
  const m = WALL_TIME.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(wall);
  // "2026-02-30 25:00" is no time: left to the schema, which refuses it as the form would.
  if (
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    return null;
  const first = timeZone ? offsetMinutes(wall, timeZone) : null;
  if (first === null) return isoInTimeZone(wall / 1000, null);
  // The offset at the instant, not at the wall time read as UTC (they differ near a DST change).
  const second = offsetMinutes(wall - first * 60_000, timeZone!) ?? first;
  return isoInTimeZone((wall - second * 60_000) / 1000, timeZone);
}
