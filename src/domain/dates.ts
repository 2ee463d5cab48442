// Building a formatter is costly; one serves every call.
const BUCHAREST_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Bucharest', year: 'numeric', month: '2-digit', day: '2-digit' });

/** Today's date (YYYY-MM-DD) in Bucharest, where the date bounds are judged. */
export function todayInBucharest(now: Date): string {
  // Bucharest is a whole number of hours from UTC (+2, +3 in summer, switching at 01:00 UTC),
  // so its date can only change on the hour: format once per UTC hour, not per request.
  const hour = Math.floor(now.getTime() / HOUR_MS);
  if (hour !== lastHour) {
    lastToday = BUCHAREST_DATE.format(now);
    lastHour = hour;
  }
  return lastToday;
}
const HOUR_MS = 3_600_000;
let lastHour = Number.NaN;
let lastToday = '';

/** True when `text` is a real calendar date in the form YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  // The calendar by arithmetic (proleptic Gregorian, as Date has it) instead of a Date and
  // its ISO string per row: the same answer for every YYYY-MM-DD (tests/unit/domain-hotpath).
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  // Year 0 has no place in PostgreSQL's calendar (1 BC comes before AD 1): `0000-01-01::date` fails.
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!);
}
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` (or a Date at UTC midnight, as a DATE column arrives) → `dd.mm.yyyy`, as every screen and export writes a day; anything else unchanged. */
export function formatDate(value: string | Date | null): string {
  if (value === null) return '';
  const iso = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return match ? `${match[3]}.${match[2]}.${match[1]}` : iso;
}
