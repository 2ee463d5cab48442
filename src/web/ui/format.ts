import { formatDate, formatInstant } from '../../services/export/format';

/** What the screens show: dates as dd.mm.yyyy, instants in Bucharest time. */
export const showDate = (iso: string) => formatDate(iso);
export const showInstant = (at: Date | null) => (at ? formatInstant(at) : '—');
/** An instant to the minute (`dd.mm.yyyy HH:MM`, Bucharest): what a banner needs. */
export const showMinute = (at: Date) => formatInstant(at).slice(0, 16);

/**
 * A count with its noun as Romanian says it: "o trimitere", "15 trimiteri", "312 de trimiteri"
 * (from 20 on, unless the last two digits are 01–19, the noun takes "de").
 */
export function countOf(n: number, one: string, many: string): string {
  if (n === 1) return one;
  const rest = n % 100;
  const de = n >= 20 && (rest === 0 || rest >= 20);
  return `${n.toLocaleString('ro-RO')} ${de ? 'de ' : ''}${many}`;
}
export const trimiteri = (n: number) => countOf(n, 'o trimitere', 'trimiteri');
