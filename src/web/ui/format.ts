import { formatDate, formatInstant } from '../../services/export/format';

/** What the screens show: dates as dd.mm.yyyy, instants in Bucharest time. */
export const showDate = (iso: string) => formatDate(iso);
export const showInstant = (at: Date | null) => (at ? formatInstant(at) : '—');
/** An instant to the minute (`dd.mm.yyyy HH:MM`, Bucharest): what a banner needs. */
export const showMinute = (at: Date) => formatInstant(at).slice(0, 16);

/** "1 trimitere", "12 trimiteri", "37 de trimiteri": Romanian counts. */
export function countOf(n: number, one: string, many: string): string {
  if (n === 1) return `1 ${one}`;
  return n % 100 >= 20 || n % 100 === 0 ? `${n} de ${many}` : `${n} ${many}`;
}
