import type { ImportRowRecord, OperationToMap } from '../../services/import';
import { CodeSelect, keyedId } from '../ui/code-select';
import { countOf, showDate } from '../ui/format';
import { IN_TURN } from './in-turn';
import { clipped } from './labels';
import { VinLink } from '../vehicul/page';

const rows = (n: number) => countOf(n, 'un rând', 'rânduri');
/** A workshop's code this short is kept on one line ("PLAC-FATA" broken at its dash read as two codes); a longer one wraps. */
const WHOLE_CODE = 24;

/**
 * One unmapped code of the file: how many rows wait for it, and its registry code chosen once for
 * all of them (the Mapări rules: CodeSelect). Its ids come from the code, never from its place in
 * the list: the screen is morphed, which pairs old and new elements by id and keeps a select's
 * chosen option when its options' attributes do not change, so a row keyed by position inherited
 * the choice of the row saved above it.
 */
function OperationRow({ batchId, op, nomenclator }: { batchId: number; op: OperationToMap; nomenclator: ReadonlyMap<string, string> }) {
  return (
    <tr id={keyedId('imp-op', op.codOpService)}>
      <td data-label="Codul dvs." class={op.codOpService.length <= WHOLE_CODE ? 'mono code-word' : 'mono'}>
        {op.codOpService}
      </td>
      <td data-label="Denumirea din fișier">{clipped(op.denumire) || '—'}</td>
      <td data-label="Rânduri">{rows(op.rows)}</td>
      <td data-label="Codul registrului">
        <form class="inline" hx-post={`/_import/${batchId}/mapare-operatie`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
          <input type="hidden" name="cod_op_service" value={op.codOpService} />
          <CodeSelect
            nomenclator={nomenclator}
            suggestion={op.suggestion}
            confirmValue={op.codOpService}
            withNote
            id={keyedId('imp-cod', op.codOpService)}
            label={`Codul registrului pentru ${op.codOpService}`}
          />
          <button type="submit">Salvează pentru {rows(op.rows)}</button>
        </form>
      </td>
    </tr>
  );
}

/** A row held because its odometer is below a reading already recorded: shown with that reading, included only on purpose. */
function ReviewRow({ batchId, row }: { batchId: number; row: ImportRowRecord }) {
  const values = row.values as { vin?: string; dataPrestatie?: string; odometruFinal?: number | null };
  return (
    <li>
      <p>
        Linia {row.line ?? row.rowIndex}: <VinLink vin={values.vin ?? ''} />, {values.odometruFinal?.toLocaleString('ro-RO')} km la{' '}
        {values.dataPrestatie ? showDate(values.dataPrestatie) : '—'}; înregistrat anterior: <strong>{row.review?.odometru.toLocaleString('ro-RO')} km</strong> la{' '}
        {row.review?.data ? showDate(row.review.data) : '—'}.
      </p>
      <form class="inline" hx-post={`/_import/${batchId}/rand/${row.rowIndex}/revizuire`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
        <input type="hidden" name="include" value="1" />
        <button type="submit">Includ rândul: kilometrajul este corect</button>
      </form>
    </li>
  );
}

/**
 * What to fix once per cause: each unmapped code with its rows (saving it maps the account's
 * code, so every row of it and every later file), and the held rows one by one.
 */
export function Fixes({
  batchId,
  operations,
  review,
  nomenclator,
  heldTotal,
}: {
  batchId: number;
  operations: OperationToMap[];
  review: ImportRowRecord[];
  nomenclator: ReadonlyMap<string, string>;
  heldTotal: number;
}) {
  if (operations.length === 0 && review.length === 0) return null;
  return (
    <section class="import-part" aria-labelledby="rezolva-titlu">
      <h2 id="rezolva-titlu">De rezolvat o singură dată</h2>
      {operations.length > 0 ? (
        <>
          <h3>Coduri de operație fără cod al registrului</h3>
          <p class="muted small">Maparea se salvează în cont: se aplică tuturor rândurilor cu acest cod și fișierelor următoare.</p>
          <table class="list stacked" id="de-mapat">
            <thead>
              <tr>
                <th scope="col">Codul dvs.</th>
                <th scope="col">Denumirea din fișier</th>
                <th scope="col">Rânduri</th>
                <th scope="col">Codul registrului</th>
              </tr>
            </thead>
            <tbody>
              {operations.map((op) => (
                <OperationRow batchId={batchId} op={op} nomenclator={nomenclator} />
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {review.length > 0 ? (
        <>
          <h3>Kilometraj mai mic decât cel înregistrat ({rows(heldTotal)})</h3>
          <p class="muted small">Poate fi o greșeală de tastare sau un ceas de bord înlocuit. Includeți doar rândurile pe care le-ați verificat.</p>
          <ul class="review-list">
            {review.map((row) => (
              <ReviewRow batchId={batchId} row={row} />
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
