import type { ImportBatchItem } from '../../services/import';
import { CATALOG } from '../../errors';
import { inClerkWords } from '../ui/field-labels';
import { countOf, showInstant } from '../ui/format';
import { BATCH_STATUS_LABEL } from './labels';
import { CodePageSelect } from './read-as';

/**
 * The upload: a file picker that is also the drop zone (app.js sends the form as soon as a
 * file is chosen or dropped). Without script it is a plain multipart form with its button.
 * The type is judged by the content, as the API does, whatever the browser calls the file.
 */
export function UploadArea({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="upload" aria-labelledby="incarca-titlu">
      <h2 id="incarca-titlu">Importă un fișier</h2>
      <form
        id="incarcare"
        method="post"
        action="/_import/incarca"
        enctype="multipart/form-data"
        hx-post="/_import/incarca"
        hx-target="#incarcare-stare"
        hx-swap="innerHTML"
        hx-disable="findAll button"
      >
        <input type="hidden" name="_csrf" value={csrfToken} />
        <label class="drop" data-drop>
          <span class="drop-text">
            <strong>Alegeți fișierul</strong> exportat din programul service-ului, sau trageți-l aici
            <span class="muted small">
              {' '}
              (xlsx, csv sau tabela .dbf a programului — cu câmpuri memo, .dbf și .fpt / .dbt într-un zip; prima foaie cu date, dacă nu alegeți alta)
            </span>
          </span>
          <input type="file" name="file" id="fisier" required accept=".xlsx,.csv,.txt,.dbf,.zip,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,text/csv" />
        </label>
        <details class="sheet">
          <summary>Alt nume de foaie</summary>
          <label>
            Foaia de importat (dintr-un fișier xlsx cu mai multe foi)
            <input name="foaie" maxlength={200} autocomplete="off" />
          </label>
        </details>
        <details class="sheet">
          <summary>Pagina de cod a unei tabele .dbf</summary>
          <label for="incarcare-codare">Pagina de cod (FoxPro, Clipper, dBase), dacă antetul tabelei o numește greșit</label>
          <CodePageSelect id="incarcare-codare" />
        </details>
        <button type="submit">Încarcă</button>
        <p class="uploading muted" aria-live="polite" hidden data-uploading>
          Se încarcă fișierul…
        </p>
      </form>
      <div id="incarcare-stare" aria-live="polite"></div>
    </section>
  );
}

function BatchRow({ b }: { b: ImportBatchItem }) {
  return (
    <tr>
      <td data-label="Fișier">
        <a href={`/import/${b.id}`}>{b.filename ?? `fișierul ${b.id}`}</a>
      </td>
      <td data-label="Încărcat">{showInstant(b.createdAt).slice(0, 16)}</td>
      <td data-label="De">{b.createdBy ?? '—'}</td>
      <td data-label="Rânduri">{b.rowCount.toLocaleString('ro-RO')}</td>
      <td data-label="Stare">
        <span class={`chip b-${b.status}`}>{BATCH_STATUS_LABEL[b.status]}</span>
        {b.error ? <p class="small">{inClerkWords(`${CATALOG[b.error.cod].problema} ${b.error.cauza}`)}</p> : null}
      </td>
    </tr>
  );
}

/** The account's earlier imports, newest first: a clerk comes back to one left half done. */
export function EarlierImports({ batches }: { batches: ImportBatchItem[] }) {
  if (batches.length === 0) return null;
  const open = batches.filter((b) => b.status === 'staged' || b.status === 'staging' || b.status === 'queued').length;
  return (
    <details class="earlier" open={open > 0}>
      <summary>
        Importuri anterioare ({batches.length}
        {open > 0 ? `, ${countOf(open, 'unul neconfirmat', 'neconfirmate')}` : ''})
      </summary>
      <table class="list stacked" id="importuri">
        <thead>
          <tr>
            <th scope="col">Fișier</th>
            <th scope="col">Încărcat</th>
            <th scope="col">De</th>
            <th scope="col">Rânduri</th>
            <th scope="col">Stare</th>
          </tr>
        </thead>
        <tbody>
          {batches.map((b) => (
            <BatchRow b={b} />
          ))}
        </tbody>
      </table>
    </details>
  );
}
