import { errorCauseLabel } from '../../domain/error-causes';
import type { DashboardPage } from '../../services/submissions/dashboard';
import { trimiteri } from '../ui/format';
import { firstPage, PAGE_SIZE, queryString, type SubmissionsQuery } from './query';

/** A link that swaps the list in place and keeps the filters in the page's URL. */
export function ListLink({ q, changes, current, rel, children }: { q: SubmissionsQuery; changes: Partial<SubmissionsQuery>; current?: boolean; rel?: string; children: unknown }) {
  const qs = queryString(q, changes);
  return (
    <a href={`/${qs}`} hx-get={`/_fragments/coada${qs}`} hx-target="#coada" hx-swap="outerMorph" hx-push-url={`/${qs}`} aria-current={current ? 'true' : undefined} rel={rel}>
      {children}
    </a>
  );
}

/** "Pagina 2 din 7 · 312 trimiteri", with the pages before and after (keyset both ways). */
export function Pages({ q, page }: { q: SubmissionsQuery; page: DashboardPage }) {
  const pages = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  const current = Math.min(pages, Math.floor(page.position / PAGE_SIZE) + 1);
  const first = page.items[0];
  const last = page.items.at(-1);
  const hasPrev = page.position > 0 && first !== undefined;
  const hasNext = last !== undefined && (page.totalCapped ? page.items.length === PAGE_SIZE : page.position + page.items.length < page.total);
  // Past COUNT_CAP the numbers are lower bounds, and the screen says so.
  const where = page.totalCapped
    ? `Pagina ${page.positionCapped ? `peste ${current}` : current} · peste ${trimiteri(page.total)}`
    : `Pagina ${current} din ${pages} · ${trimiteri(page.total)}`;
  return (
    <nav class="pages" aria-label="Pagini">
      {hasPrev ? (
        <ListLink q={q} changes={{ ...firstPage, inainte: first.id }} rel="prev">
          ← Pagina anterioară
        </ListLink>
      ) : null}
      <span class="where">{where}</span>
      {hasNext ? (
        <ListLink q={q} changes={{ ...firstPage, dupa: last.id }} rel="next">
          Pagina următoare →
        </ListLink>
      ) : null}
    </nav>
  );
}

/** The errors of the view grouped by cause: each chip filters the list to that cause (cauza=…). */
export function Causes({ q, causes }: { q: SubmissionsQuery; causes: Array<{ cod: string; n: number }> }) {
  if (causes.length === 0) return null;
  return (
    <nav class="chips causes" aria-label="Erori după cauză">
      <span class="label">După cauză:</span>
      {q.cauza ? (
        <ListLink q={q} changes={{ ...firstPage, cauza: undefined }}>
          toate cauzele
        </ListLink>
      ) : null}
      {causes.map(({ cod, n }) => (
        <ListLink q={q} changes={{ ...firstPage, cauza: cod }} current={q.cauza === cod}>
          <span class="n">{n}</span> × {errorCauseLabel(cod)}
        </ListLink>
      ))}
    </nav>
  );
}
