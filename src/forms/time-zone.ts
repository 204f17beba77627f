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
