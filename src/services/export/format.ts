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

/** `YYYY-MM-DD` (or a Date at UTC midnight, as a DATE column arrives) → `dd.mm.yyyy`; anything else unchanged. */
export function formatDate(value: string | Date | null): string {
  if (value === null) return '';
  const iso = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return match ? `${match[3]}.${match[2]}.${match[1]}` : iso;
}

/** An instant (a Date, or a timestamp as PostgreSQL prints it) as `dd.mm.yyyy HH:MM:SS` in Bucharest. */
export function formatInstant(value: Date | string | null): string {
  if (value === null) return '';
  const instant = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(instant.getTime())) return String(value);
  const parts = Object.fromEntries(BUCHAREST.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.day}.${parts.month}.${parts.year} ${parts.hour}:${parts.minute}:${parts.second}`;
}
