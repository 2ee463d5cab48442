import { odometerText } from '../../domain/import-cells';
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

const NUMBER_TEXT = /^-?\d+(?:\.\d+)?$/;

/**
 * An odometer as a screen shows it and a form is filled with it: whole kilometres in digits; a
 * fraction (held, never sent; a number, or a stored record's JSON text of one) as odometerText
 * writes it, which the reader refuses again when saved unchanged. "87.456" in a form read back
 * as 87456 km, and "87.4" stood beside a message about "87,4".
 */
export function showOdometer(value: unknown): string {
  if (value === null || value === undefined) return '';
  const n = typeof value === 'number' ? value : typeof value === 'string' && NUMBER_TEXT.test(value) ? Number(value) : null;
  return n !== null && !Number.isInteger(n) ? odometerText(n) : String(value);
}
