import { formatDate, formatInstant } from '../../services/export/format';

/** What the screens show: dates as dd.mm.yyyy, instants in Bucharest time. */
export const showDate = (iso: string) => formatDate(iso);
export const showInstant = (at: Date | null) => (at ? formatInstant(at) : '—');
