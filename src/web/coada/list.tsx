import { STATUS_LABEL, SUBMISSION_STATUSES, TO_RESOLVE, type SubmissionStatus } from '../../domain/statuses';
import type { SubmissionPage } from '../../services/submissions/read';
import { showDate, showInstant } from '../ui/format';
import { StatusChip } from '../ui/status-chip';
import { queryString, type CoadaQuery, type View } from './query';

const VIEW_LABEL: Record<View, string> = { de_rezolvat: 'De rezolvat', toate: 'Toate', ...STATUS_LABEL };

/** A link that swaps the list in place and keeps the filters in the page's URL. */
function ListLink({ q, changes, current, children }: { q: CoadaQuery; changes: Partial<CoadaQuery>; current?: boolean; children: unknown }) {
  const qs = queryString(q, changes);
  return (
    <a href={`/${qs}`} hx-get={`/_fragments/coada${qs}`} hx-target="#coada" hx-swap="outerMorph" hx-push-url={`/${qs}`} aria-current={current ? 'true' : undefined}>
      {children}
    </a>
  );
}

/** The filter form's view: a chip changes it, so each list answer brings it along (out of band). */
export function ViewField({ q, oob }: { q: CoadaQuery; oob?: boolean }) {
  return <input type="hidden" id="filtru-vedere" name="vedere" value={q.vedere} hx-swap-oob={oob ? 'true' : undefined} />;
}

/** What a list request answers: the section, and the form's view field kept in step. */
export function CoadaFragment(props: { q: CoadaQuery; counts: Record<SubmissionStatus, number>; page: SubmissionPage }) {
  return (
    <>
      <CoadaSection {...props} />
      <ViewField q={props.q} oob />
    </>
  );
}

/**
 * The submissions section: counters per state (each a filter), the page of rows, the link to
 * the next page. It is its own poller: every 5 s it asks for itself again (app.js pauses that
 * while the detail panel is open or the page is hidden; the server answers 304 when nothing
 * changed), and is swapped by morphing, so scroll and focus stay where they were.
 */
export function CoadaSection({ q, counts, page }: { q: CoadaQuery; counts: Record<SubmissionStatus, number>; page: SubmissionPage }) {
  const toResolve = TO_RESOLVE.reduce((n, s) => n + counts[s], 0);
  const total = SUBMISSION_STATUSES.reduce((n, s) => n + counts[s], 0);
  const views: Array<[View, number]> = [['de_rezolvat', toResolve], ['toate', total], ...SUBMISSION_STATUSES.map((s): [View, number] => [s, counts[s]])];
  const first = q.dupa === undefined;
  return (
    <section id="coada" data-poll hx-get={`/_fragments/coada${queryString(q)}`} hx-trigger="every 5s, coada:schimbata from:body" hx-swap="outerMorph">
      <nav class="chips" aria-label="Stări">
        {views.map(([view, n]) => (
          <ListLink q={q} changes={{ vedere: view, dupa: undefined }} current={q.vedere === view}>
            {VIEW_LABEL[view]} <span class="n">{n}</span>
          </ListLink>
        ))}
      </nav>
      {page.items.length === 0 ? (
        <p class="empty">{q.vedere === 'de_rezolvat' && first && !q.cauta ? 'Nimic de rezolvat: toate trimiterile sunt în regulă.' : 'Nicio trimitere nu corespunde filtrelor.'}</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
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
                <td>
                  <button type="button" class="linkish" hx-get={`/_fragments/trimitere/${s.id}`} hx-target="#panou" aria-label={`Detalii trimiterea ${s.id}`}>
                    #{s.id}
                  </button>
                </td>
                <td>{showDate(s.dataPrestatie)}</td>
                <td>{s.nrInm}</td>
                <td class="mono">{s.vin}</td>
                <td>
                  <StatusChip status={s.status} />
                </td>
                <td class="motiv">{s.regError?.problema ?? s.motiv ?? ''}</td>
                <td>{showInstant(s.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pages" aria-label="Pagini">
        {first ? null : (
          <ListLink q={q} changes={{ dupa: undefined }}>
            ← Prima pagină
          </ListLink>
        )}
        {page.nextAfter === null ? null : (
          <ListLink q={q} changes={{ dupa: page.nextAfter }}>
            Pagina următoare →
          </ListLink>
        )}
      </nav>
    </section>
  );
}
