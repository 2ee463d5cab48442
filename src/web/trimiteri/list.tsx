import { errorCauseLabel } from '../../domain/error-causes';
import { STATUS_LABEL, SUBMISSION_STATUSES } from '../../domain/statuses';
import type { Count, DashboardCounts, DashboardPage } from '../../services/submissions/dashboard';
import { inClerkWords } from '../ui/field-labels';
import { showDate, showInstant } from '../ui/format';
import { StatusChip } from '../ui/status-chip';
import { BulkBar } from './bulk';
import { Causes, ListLink, Pages } from './pages';
import { firstPage, queryString, SUBSTRING_HINT, type SubmissionsQuery, type View } from './query';
import { VinLink } from '../vehicul/page';

/** A counter as a chip shows it: past the cap, "10.000+". */
const shownCount = (c: Count) => `${c.n.toLocaleString('ro-RO')}${c.capped ? '+' : ''}`;

const VIEW_LABEL: Record<View, string> = { de_rezolvat: 'De rezolvat', toate: 'Toate', ...STATUS_LABEL };

export interface ListData {
  q: SubmissionsQuery;
  counts: DashboardCounts;
  page: DashboardPage;
  causes: Array<{ cod: string; n: number }>;
}

/** The filter form's view: a chip changes it, so each list answer brings it along (out of band). */
export function ViewField({ q, oob }: { q: SubmissionsQuery; oob?: boolean }) {
  return <input type="hidden" id="filtru-vedere" name="vedere" value={q.vedere} hx-swap-oob={oob ? 'true' : undefined} />;
}

/** What a list request answers: the section, and the form's view field kept in step. */
export function SubmissionsFragment(props: ListData) {
  return (
    <>
      <SubmissionsSection {...props} />
      <ViewField q={props.q} oob />
    </>
  );
}

function Rows({ page }: { page: DashboardPage }) {
  return (
    <table class="list rows">
      <thead>
        <tr>
          <th scope="col" class="pick">
            <span class="visually-hidden">Alege</span>
          </th>
          <th scope="col">Nr.</th>
          <th scope="col">Data prestației</th>
          <th scope="col">Nr. înmatriculare</th>
          <th scope="col">VIN</th>
          <th scope="col">Stare</th>
          <th scope="col">Motiv</th>
          <th scope="col">Primită</th>
        </tr>
      </thead>
      <tbody>
        {page.items.map((s) => (
          <tr id={`t-${s.id}`}>
            <td class="pick">
              <input type="checkbox" name="id" value={String(s.id)} form="actiuni" aria-label={`Alege trimiterea ${s.id}`} />
            </td>
            <td class="nr">
              <button
                type="button"
                class="linkish"
                hx-get={`/_fragments/trimitere/${s.id}`}
                hx-target="#panou"
                data-permalink={`/trimiteri/${s.id}`}
                aria-label={`Detalii trimiterea ${s.id}`}
              >
                #{s.id}
              </button>
            </td>
            <td data-label="Data">{showDate(s.dataPrestatie)}</td>
            <td data-label="Nr.">{s.nrInm}</td>
            <td data-label="VIN">
              <VinLink vin={s.vin} />
            </td>
            <td class="state">
              <StatusChip status={s.status} />
            </td>
            <td class="motiv">
              {s.regError ? <span class="cause">{errorCauseLabel(s.regError.cod)}: </span> : null}
              {inClerkWords(s.regError?.problema ?? s.motiv ?? '')}
            </td>
            <td data-label="Primită" class="when">
              {showInstant(s.createdAt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The submissions section: counters per state (each a filter), the errors by cause, the page
 * of rows with their checkboxes, the pages. It is its own poller: every 5 s it asks for
 * itself again (app.js pauses that while the panel is open, rows are ticked or the page is
 * hidden, and backs off after a failure; the server answers 304 when nothing changed), and is
 * swapped by morphing, so scroll and focus stay where they were.
 */
export function SubmissionsSection({ q, counts, page, causes }: ListData) {
  const views: Array<[View, Count]> = [['de_rezolvat', counts.toResolve], ['toate', counts.all], ...SUBMISSION_STATUSES.map((s): [View, Count] => [s, counts.byStatus[s]])];
  const filtered = Boolean(q.cauta || q.de_la || q.pana_la || q.cauza);
  return (
    <section id="coada" data-poll hx-get={`/_fragments/coada${queryString(q)}`} hx-trigger="every 5s, coada:schimbata from:body" hx-swap="outerMorph" aria-labelledby="lista-titlu">
      <nav class="chips" aria-label="Stări">
        {views.map(([view, n]) => (
          <ListLink q={q} changes={{ ...firstPage, vedere: view, cauza: undefined }} current={q.vedere === view}>
            {VIEW_LABEL[view]} <span class="n">{shownCount(n)}</span>
          </ListLink>
        ))}
      </nav>
      {/* Credential waits are named by the banner of every page (web/banners.tsx); here they are a cause. */}
      <Causes q={q} causes={causes} />
      <h2 id="lista-titlu" class="list-title" tabindex={-1}>
        {VIEW_LABEL[q.vedere]}
        {q.cauza ? ` · ${errorCauseLabel(q.cauza)}` : ''}
        {q.cauta ? ` · „${q.cauta}”` : ''}
      </h2>
      {q.cauta && q.cauta.replace(/[\s-]/g, '').length < 3 ? <p class="hint">{SUBSTRING_HINT}</p> : null}
      {page.items.length === 0 ? (
        <p class="empty">
          {q.vedere === 'de_rezolvat' && page.position === 0 && !filtered ? 'Nimic de rezolvat: toate trimiterile sunt în regulă.' : 'Nicio trimitere nu corespunde filtrelor.'}
        </p>
      ) : (
        <>
          <BulkBar q={q} total={page.total} capped={page.totalCapped} />
          <Rows page={page} />
        </>
      )}
      <Pages q={q} page={page} />
    </section>
  );
}
