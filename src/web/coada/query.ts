import { z } from 'zod';
import { SUBMISSION_STATUSES, TO_RESOLVE, type SubmissionStatus } from '../../domain/statuses';
import { IsoDateParam } from '../../http/validate';
import { blankless } from '../ui/query';
import type { ListFilters } from '../../services/submissions/read';

export const VIEWS = ['de_rezolvat', 'toate', ...SUBMISSION_STATUSES] as const;
export type View = (typeof VIEWS)[number];

/** The submissions list's filters, as the page's URL keeps them (Romanian names, like the screen). */
export const CoadaQuery = z.object({
  vedere: blankless(z.enum(VIEWS).default('de_rezolvat')),
  de_la: blankless(IsoDateParam.optional()),
  pana_la: blankless(IsoDateParam.optional()),
  cauta: blankless(z.string().trim().max(40).optional()),
  dupa: blankless(z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional()),
});
export type CoadaQuery = z.infer<typeof CoadaQuery>;

export const PAGE_SIZE = 50;

/** The list's query for the service: "De rezolvat" oldest first (what waited longest), the rest newest first. */
export function listFilters(q: CoadaQuery): ListFilters {
  const statuses: readonly SubmissionStatus[] | undefined = q.vedere === 'de_rezolvat' ? TO_RESOLVE : q.vedere === 'toate' ? undefined : [q.vedere];
  return {
    statuses,
    date_from: q.de_la,
    date_to: q.pana_la,
    search: q.cauta || undefined,
    after: q.dupa,
    limit: PAGE_SIZE,
    oldestFirst: q.vedere === 'de_rezolvat',
  };
}

/** The query string of `q` with `changes`, without defaults and empty values (what the URL shows). */
export function queryString(q: CoadaQuery, changes: Partial<CoadaQuery> = {}): string {
  const merged = { ...q, ...changes };
  const params = new URLSearchParams();
  if (merged.vedere !== 'de_rezolvat') params.set('vedere', merged.vedere);
  if (merged.de_la) params.set('de_la', merged.de_la);
  if (merged.pana_la) params.set('pana_la', merged.pana_la);
  if (merged.cauta) params.set('cauta', merged.cauta);
  if (merged.dupa !== undefined) params.set('dupa', String(merged.dupa));
  const text = params.toString();
  return text ? `?${text}` : '';
}
