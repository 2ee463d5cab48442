import { html } from 'hono/html';
import type { JournalRecord } from '../../services/journal/list';
import { showInstant } from '../ui/format';
import { actorText } from '../ui/actor-text';
import { detailPairs } from './details';
import { eventLabel, levelLabel } from './labels';
import { jurnalQueryString, type JurnalQuery } from './query';

/** The row's details as "label: value" pairs, without who did it (its own column). */
function detailsOf(e: JournalRecord) {
  const pairs = detailPairs(e.data);
  if (e.submissionId) pairs.unshift(['trimiterea', `#${e.submissionId}`]);
  return pairs.map(([label, value], i) => html`${i > 0 ? '; ' : ''}<span class="k">${label}:</span> ${value}`);
}

/**
 * One journal row. A page has a hundred of them, so they are written with hono's `html`
 * template (every value escaped, about three times faster than JSX here: bench:dashboard).
 */
function journalRow(e: JournalRecord, allAccounts: boolean) {
  const request = e.requestId ? html`<a href="/jurnal?cerere=${encodeURIComponent(e.requestId)}" title="Toate evenimentele acestei cereri">${e.requestId.slice(0, 8)}</a>` : '';
  return html`<tr class="lvl-${e.level}"><td>${showInstant(e.ts)}</td><td>${levelLabel(e.level)}</td><td title="${e.event}">${eventLabel(e.event)}</td><td class="actor">${actorText(e.by, e.event)}</td>${
    allAccounts ? html`<td>${e.accountId ?? '—'}</td>` : ''
  }<td class="mono small">${request}</td><td class="details">${detailsOf(e)}</td></tr>`;
}

/** The journal's rows and the link to older ones. */
export function JournalSection({ q, items, nextBefore, allAccounts }: { q: JurnalQuery; items: JournalRecord[]; nextBefore: number | null; allAccounts: boolean }) {
  return (
    <section id="jurnal">
      {items.length === 0 ? (
        <p class="empty">Niciun eveniment nu corespunde filtrelor.</p>
      ) : (
        <table class="list journal">
          <thead>
            <tr>
              <th scope="col">Ora (București)</th>
              <th scope="col">Nivel</th>
              <th scope="col">Eveniment</th>
              <th scope="col">Cine</th>
              {allAccounts ? <th scope="col">Cont</th> : null}
              <th scope="col">Cerere</th>
              <th scope="col">Detalii</th>
            </tr>
          </thead>
          <tbody>{items.map((e) => journalRow(e, allAccounts))}</tbody>
        </table>
      )}
      <nav class="pages" aria-label="Pagini">
        {q.inainte === undefined ? null : <a href={`/jurnal${jurnalQueryString(q, { inainte: undefined })}`}>← Cele mai noi</a>}
        {nextBefore === null ? null : <a href={`/jurnal${jurnalQueryString(q, { inainte: nextBefore })}`}>Mai vechi →</a>}
      </nav>
    </section>
  );
}
