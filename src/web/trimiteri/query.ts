import { z } from 'zod';
import { ERROR_CAUSES } from '../../domain/error-causes';
import { SUBMISSION_STATUSES } from '../../domain/statuses';
import { IsoDateParam } from '../../http/validate';
import type { DashboardFilters, PageRequest } from '../../services/submissions/dashboard';
import { blankless } from '../ui/query';

export const VIEWS = ['de_rezolvat', 'toate', ...SUBMISSION_STATUSES] as const;
export type View = (typeof VIEWS)[number];

const Cursor = blankless(z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional());

/** The submissions list's filters, as the page's URL keeps them (Romanian names, like the screen). */
export const SubmissionsQuery = z.object({
  vedere: blankless(z.enum(VIEWS).default('de_rezolvat')),
  de_la: blankless(IsoDateParam.optional()),
  pana_la: blankless(IsoDateParam.optional()),
  cauta: blankless(z.string().trim().max(40).optional()),
  /** A registry error code (reg_error.cod), only from the known list. */
  cauza: blankless(z.enum(ERROR_CAUSES as [string, ...string[]]).optional()),
  /** Keyset cursors: the page after `dupa`, or the page before `inainte`. */
  dupa: Cursor,
  inainte: Cursor,
});
export type SubmissionsQuery = z.infer<typeof SubmissionsQuery>;

export const PAGE_SIZE = 50;

/** The list's filters for the service (the page is apart: a bulk action takes the whole filter). */
export function dashboardFilters(q: SubmissionsQuery): DashboardFilters {
  return { view: q.vedere, date_from: q.de_la, date_to: q.pana_la, search: q.cauta || undefined, cause: q.cauza as DashboardFilters['cause'] };
}

/** "De rezolvat" oldest first (what waited longest), the rest newest first. */
export function pageRequest(q: SubmissionsQuery): PageRequest {
  return { limit: PAGE_SIZE, after: q.inainte === undefined ? q.dupa : undefined, before: q.inainte, oldestFirst: q.vedere === 'de_rezolvat' };
}

/** Only these views show the errors grouped by cause. */
export const hasCauses = (q: SubmissionsQuery) => q.vedere === 'error' || q.vedere === 'de_rezolvat';

/** The query string of `q` with `changes`, without defaults and empty values (what the URL shows). */
export function queryString(q: SubmissionsQuery, changes: Partial<SubmissionsQuery> = {}): string {
  const merged = { ...q, ...changes };
  const params = new URLSearchParams();
  if (merged.vedere !== 'de_rezolvat') params.set('vedere', merged.vedere);
  if (merged.de_la) params.set('de_la', merged.de_la);
  if (merged.pana_la) params.set('pana_la', merged.pana_la);
  if (merged.cauta) params.set('cauta', merged.cauta);
  if (merged.cauza) params.set('cauza', merged.cauza);
  if (merged.dupa !== undefined) params.set('dupa', String(merged.dupa));
  if (merged.inainte !== undefined) params.set('inainte', String(merged.inainte));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The same filters without a page: where a chip, a search or a bulk action starts from. */
export const firstPage = { dupa: undefined, inainte: undefined } satisfies Partial<SubmissionsQuery>;

/** What the search box promises (SUBSTRING_MIN in services/submissions/dashboard.ts). */
export const SUBSTRING_HINT = 'Cu 1–2 caractere se caută numerele și VIN-urile care încep așa; de la 3 caractere, oriunde în număr sau VIN.';
