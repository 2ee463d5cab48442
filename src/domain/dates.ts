// Building a formatter is costly; one serves every call.
const BUCHAREST_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Bucharest', year: 'numeric', month: '2-digit', day: '2-digit' });

/** Today's date (YYYY-MM-DD) in Bucharest, where the date bounds are judged. */
export function todayInBucharest(now: Date): string {
  return BUCHAREST_DATE.format(now);
}

/** True when `text` is a real calendar date in the form YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}
