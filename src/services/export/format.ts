// Dates and instants as a Romanian reader expects them in an export: `dd.mm.yyyy`, and
// instants in Bucharest time (the workshop's wall clock, summer time included).

const BUCHAREST = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Bucharest',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export { formatDate } from '../../domain/dates';

// Bucharest's offset from UTC changes only on the hour (summer time starts and ends at 03:00
// and 04:00 local): it is looked up once per hour of UTC time, not once per cell.
const HOUR_MS = 3_600_000;
const offsets = new Map<number, number>();
function bucharestOffset(ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  let offset = offsets.get(hour);
  if (offset === undefined) {
    const p = Object.fromEntries(BUCHAREST.formatToParts(new Date(hour * HOUR_MS)).map((x) => [x.type, Number(x.value)]));
    offset = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour, p.minute, p.second) - hour * HOUR_MS;
    if (offsets.size > 100_000) offsets.clear();
    offsets.set(hour, offset);
  }
  return offset;
}

const two = (n: number) => String(n).padStart(2, '0');

/** An instant (a Date, or a timestamp as PostgreSQL prints it) as `dd.mm.yyyy HH:MM:SS` in Bucharest. */
export function formatInstant(value: Date | string | null): string {
  if (value === null) return '';
  const ms = (value instanceof Date ? value : new Date(value)).getTime();
  if (Number.isNaN(ms)) return String(value);
  const local = new Date(ms + bucharestOffset(ms));
  return `${two(local.getUTCDate())}.${two(local.getUTCMonth() + 1)}.${local.getUTCFullYear()} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
}
