import { IMPORT_FIELDS, REQUIRED_FIELDS } from '../../domain/import-header';
import type { LoadedBatch, Sample } from '../../services/import';
import { showDate } from '../ui/format';
import { IN_TURN } from './in-turn';
import { clipped, IMPORT_FIELD_LABEL, SHOWN_CHARS } from './labels';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** How a value was read, as the clerk would write it: an ISO date as dd.mm.yyyy. */
const shown = (read: string) => (ISO_DATE.test(read) ? showDate(read) : clipped(read));

function Samples({ samples }: { samples: Sample[] }) {
  if (samples.length === 0) return <span class="muted small">fără valori în primele rânduri</span>;
  return (
    <ul class="samples">
      {samples.map((s) => (
        <li>
          <span class="mono">{clipped(s.inFile)}</span> →{' '}
          {s.read === null ? <em class="muted">nu se citește</em> : s.read === '' ? <em class="bad-read">nu se poate citi</em> : <strong class="mono">{shown(s.read)}</strong>}
        </li>
      ))}
    </ul>
  );
}

/** Where the mapping came from, and what changed in the header since it was saved. */
function Origin({ batch }: { batch: LoadedBatch }) {
  const { source, drift, observatii } = batch.mappingState;
  const missing = REQUIRED_FIELDS.filter((f) => batch.mappingState.mapping[f] === undefined);
  return (
    <>
      <p>
        {source === 'saved'
          ? 'Maparea salvată pentru acest antet: este cea folosită la fișierele anterioare cu aceleași coloane.'
          : 'Maparea sugerată după numele coloanelor: verificați exemplele și folosiți-o; se păstrează pentru fișierele următoare cu același antet.'}
      </p>
      {(observatii ?? []).map((o) => (
        <p class="muted small">{o}</p>
      ))}
      {drift ? (
        <div class="notice warn" role="status">
          <strong>Antetul diferă de cel pentru care a fost salvată maparea.</strong>
          {drift.columns_new.length > 0 ? <p>Coloane noi: {drift.columns_new.map((c) => `„${c}”`).join(', ')}.</p> : null}
          {drift.columns_missing.length > 0 ? <p>Coloane care lipsesc: {drift.columns_missing.map((c) => `„${c}”`).join(', ')}.</p> : null}
          <p class="fix">Verificați câmpul fiecărei coloane de mai jos și salvați maparea.</p>
        </div>
      ) : null}
      {missing.length > 0 ? (
        <div class="notice error" role="alert">
          <strong>Câmpuri obligatorii fără coloană: {missing.map((f) => IMPORT_FIELD_LABEL[f]).join(', ')}.</strong>
          <p class="fix">Alegeți coloana fiecăruia; fără ele niciun rând nu poate fi trimis.</p>
        </div>
      ) : null}
    </>
  );
}

/**
 * The file's columns: for each, the field it serves (a select) and three values "in the file →
 * how we read it". A field picked from a select's list saves the mapping and re-renders the
 * samples and the preview; one reached with the keys waits for Enter or the button, with a note
 * (import.js), so that moving through the options sends nothing.
 * `editable` is false while staging, once committed or failed.
 */
export function Columns({ batch, samples, editable }: { batch: LoadedBatch; samples: Sample[][]; editable: boolean }) {
  const save = batch.mappingState.source === 'saved' ? 'Salvează maparea' : 'Folosește această mapare';
  const fieldOf = new Map(IMPORT_FIELDS.flatMap((f) => (batch.mappingState.mapping[f] === undefined ? [] : [[batch.mappingState.mapping[f]!, f] as const])));
  return (
    <section class="import-part" aria-labelledby="coloane-titlu">
      <h2 id="coloane-titlu">Coloanele fișierului</h2>
      <Origin batch={batch} />
      <form id="coloane" hx-post={`/_import/${batch.id}/coloane`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
        <div class="table-scroll">
          <table class="list stacked columns-table">
            <thead>
              <tr>
                <th scope="col">Coloana din fișier</th>
                <th scope="col">Se citește ca</th>
                <th scope="col">În fișier → cum o citim</th>
              </tr>
            </thead>
            <tbody>
              {batch.header.map((name, i) => (
                <tr>
                  <th scope="row" title={name.length > SHOWN_CHARS ? `${name.length.toLocaleString('ro-RO')} de caractere` : undefined}>
                    {clipped(name) || `(coloana ${i + 1}, fără nume)`}
                  </th>
                  <td data-label="Se citește ca">
                    <select name="camp" aria-label={`Câmpul coloanei „${clipped(name) || i + 1}”`} disabled={!editable} autocomplete="off">
                      <option value="" selected={!fieldOf.has(i)}>
                        — nu se folosește —
                      </option>
                      {IMPORT_FIELDS.map((f) => (
                        <option value={f} selected={fieldOf.get(i) === f}>
                          {IMPORT_FIELD_LABEL[f]}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="În fișier → cum o citim">
                    <Samples samples={samples[i] ?? []} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {editable ? (
          <p class="form-actions">
            <button type="submit">{save}</button>
            <span id="coloane-nesalvate" class="unsaved-note" role="status" hidden>
              Câmpurile schimbate nu sunt încă salvate: apăsați Enter sau „{save}”; Escape revine la cel salvat.
            </span>
          </p>
        ) : null}
      </form>
    </section>
  );
}
