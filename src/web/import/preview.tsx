import { ROW_STATES, type RowState } from '../../domain/import-state';
import type { SubmissionStatus } from '../../domain/statuses';
import type { ImportPreview, ImportRowRecord } from '../../services/import';
import { inClerkWords } from '../ui/field-labels';
import { showDate, showOdometer } from '../ui/format';
import { RowAfterCommit } from './commit';
import { IMPORT_FIELD_LABEL, ROW_STATE_LABEL } from './labels';
import { IN_TURN } from './in-turn';
import { PAGE_SIZE, viewQuery, type ImportView } from './load';
import { vehicleHref } from '../vehicul/page';

/** The fields the table shows one per column, editable in place. */
const CELLS = ['vin', 'nrInm', 'dataPrestatie', 'odometruInitial', 'odometruFinal'] as const;
type CellField = (typeof CELLS)[number];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function cellValue(row: ImportRowRecord, field: CellField): string {
  const v = (row.values as Record<string, unknown>)[field];
  if (v === null || v === undefined) return '';
  if (field === 'odometruInitial' || field === 'odometruFinal') return showOdometer(v);
  return field === 'dataPrestatie' && typeof v === 'string' && ISO_DATE.test(v) ? showDate(v) : String(v);
}

/** The content errors of a cell (`prestatii.1.cod_prestatie` belongs to the operations cell). */
const errorsOf = (row: ImportRowRecord, field: string) => row.erori.filter((e) => e.field.split(/[.[]/)[0] === field);

function CellErrors({ errors }: { errors: ImportRowRecord['erori'] }) {
  return (
    <>
      {errors.map((e) => (
        <p class="cell-err">
          <strong>{inClerkWords(e.problema)}</strong> {inClerkWords(e.cauza)} <span class="fix">{inClerkWords(e.fix)}</span>
        </p>
      ))}
    </>
  );
}

/**
 * One field of one row: an input saved when it is left changed (Tab, a click elsewhere) or on
 * Enter, Escape putting the stored value back (import.js); its errors under it.
 */
function Cell({ batchId, row, field, editable }: { batchId: number; row: ImportRowRecord; field: CellField; editable: boolean }) {
  // A line left out is no record: what a record would need is not its fault.
  const errors = row.state === 'left_out' ? [] : errorsOf(row, field);
  const value = cellValue(row, field);
  return (
    <td class={errors.length > 0 ? 'bad' : undefined} data-label={IMPORT_FIELD_LABEL[field]}>
      {editable ? (
        <form class="cell" hx-post={`/_import/${batchId}/rand/${row.rowIndex}/editeaza`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
          <input type="hidden" name="camp" value={field} />
          <input
            name="valoare"
            id={`c-${row.rowIndex}-${field}`}
            value={value}
            maxlength={500}
            autocomplete="off"
            spellcheck={false}
            data-cell
            aria-label={`${IMPORT_FIELD_LABEL[field]}, linia ${row.line ?? row.rowIndex}`}
            aria-invalid={errors.length > 0 ? 'true' : undefined}
          />
        </form>
      ) : (
        <span class="mono">{value || '—'}</span>
      )}
      {row.overriddenFields.includes(field) ? <span class="muted small"> (corectat)</span> : null}
      <CellErrors errors={errors} />
    </td>
  );
}

/** A row held for its odometer: its vehicle's readings so far, on the vehicle's page. */
function VehicleOfRow({ row }: { row: ImportRowRecord }) {
  const vin = (row.values as { vin?: unknown }).vin;
  if (typeof vin !== 'string' || vin === '') return null;
  return (
    <a class="small" href={vehicleHref(vin)}>
      Istoricul vehiculului
    </a>
  );
}

/** A row held for its odometer, included or held again from its own line of the table. */
function ReviewToggle({ batchId, row }: { batchId: number; row: ImportRowRecord }) {
  const include = !row.review?.inclus;
  return (
    <form class="inline" hx-post={`/_import/${batchId}/rand/${row.rowIndex}/revizuire`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
      <input type="hidden" name="include" value={include ? '1' : '0'} />
      <button type="submit" class="small-button">
        {include ? 'Includ rândul' : 'Ține deoparte'}
      </button>
    </form>
  );
}

/**
 * Leaves a row out of the commit by hand (a line the clerk knows is no service), or takes back
 * one left out by hand; lines left out by the import itself (totals, notes) have no button.
 */
function LeftOutToggle({ batchId, row }: { batchId: number; row: ImportRowRecord }) {
  if (row.state === 'left_out' && !row.leftOutByHand) return null;
  const leave = row.state !== 'left_out';
  return (
    <form class="inline" hx-post={`/_import/${batchId}/rand/${row.rowIndex}/deoparte`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
      <input type="hidden" name="deoparte" value={leave ? '1' : '0'} />
      <button type="submit" class="small-button secondary" aria-label={`${leave ? 'Lasă deoparte' : 'Include din nou'} linia ${row.line ?? row.rowIndex}`}>
        {leave ? 'Lasă deoparte' : 'Include din nou'}
      </button>
    </form>
  );
}

/**
 * The visit a line belongs to, when it has several lines: they go to the registry as one record.
 * Its first line is named as the table numbers lines (the file's line) when it is on this page.
 */
function VisitNote({ row, lineOf }: { row: ImportRowRecord; lineOf: ReadonlyMap<number, number | null> }) {
  if (!row.visit || row.visit.lines < 2) return null;
  const head = row.visit.head;
  return (
    <p class="visit small">
      {head === row.rowIndex ? `Vizită de ${row.visit.lines} rânduri: o singură înregistrare` : `Aceeași vizită ca linia ${lineOf.get(head) ?? `rândului ${head}`}`}
    </p>
  );
}

function Operations({ row }: { row: ImportRowRecord }) {
  return (
    <td data-label="Operații">
      {row.prestatii.map((p) => (
        <span class="op mono">{p.cod_client ? `${p.cod_client} → ${p.cod_prestatie}` : p.cod_prestatie}</span>
      ))}
      {row.nemapate.map((code) => (
        <span class="op mono unmapped">{code} → ?</span>
      ))}
      {row.state === 'left_out' ? null : <CellErrors errors={errorsOf(row, 'prestatii')} />}
    </td>
  );
}

/** The chips: every state with its count over the whole batch; each one filters the table (its own URL). */
export function StateChips({ batchId, preview, view }: { batchId: number; preview: ImportPreview; view: ImportView }) {
  const chip = (state: RowState | undefined, label: string, n: number) => {
    const q = viewQuery({ stare: state });
    return (
      <a
        href={`/import/${batchId}${q}`}
        hx-get={`/_import/${batchId}${q}`}
        hx-target="#import"
        hx-swap="outerMorph"
        {...IN_TURN}
        aria-current={view.stare === state ? 'true' : undefined}
        class={`chip r-${state ?? 'all'}`}
      >
        {label} <span class="n">{n.toLocaleString('ro-RO')}</span>
      </a>
    );
  };
  return (
    <nav class="chips" aria-label="Rândurile după stare">
      {chip(undefined, 'Toate', preview.summary.total)}
      {ROW_STATES.map((s) => chip(s, ROW_STATE_LABEL[s], preview.summary.counts[s]))}
    </nav>
  );
}

/**
 * A page of the preview: each row's line, state and why, its cells (editable while the batch is), its operations.
 * Once committed (`submissions`: the page's submissions by id), a row's state is its submission's (RowAfterCommit).
 */
export function PreviewTable({
  batchId,
  preview,
  view,
  editable,
  submissions,
}: {
  batchId: number;
  preview: ImportPreview;
  view: ImportView;
  editable: boolean;
  submissions?: ReadonlyMap<number, SubmissionStatus> | null;
}) {
  const { rows } = preview;
  const lineOf = new Map(rows.map((r) => [r.rowIndex, r.line]));
  const last = rows[rows.length - 1];
  const next = rows.length === PAGE_SIZE && last ? viewQuery({ ...view, dupa: last.rowIndex }) : null;
  const link = (q: string, label: string) => (
    <a href={`/import/${batchId}${q}`} hx-get={`/_import/${batchId}${q}`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
      {label}
    </a>
  );
  return (
    <>
      {rows.length === 0 ? (
        <p class="empty">Niciun rând în această vedere.</p>
      ) : (
        <section class="table-scroll" tabindex={0} aria-label="Previzualizarea rândurilor">
          <table class="list stacked preview-table">
            <thead>
              <tr>
                <th scope="col">Linia</th>
                <th scope="col">Stare</th>
                {CELLS.map((f) => (
                  <th scope="col">{IMPORT_FIELD_LABEL[f]}</th>
                ))}
                <th scope="col">Operații</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr id={`r-${row.rowIndex}`} class={`r-${row.state}`}>
                  <td data-label="Linia">{row.submissionId === null ? (row.line ?? row.rowIndex) : <a href={`/trimiteri/${row.submissionId}`}>{row.line ?? row.rowIndex}</a>}</td>
                  <td data-label="Stare">
                    {submissions ? (
                      <RowAfterCommit row={row} submissions={submissions} />
                    ) : (
                      <>
                        <span class={`chip r-${row.state}`}>{ROW_STATE_LABEL[row.state]}</span>
                        <VisitNote row={row} lineOf={lineOf} />
                        {row.motiv ? <p class="muted small">{inClerkWords(row.motiv)}</p> : null}
                        {editable && row.review ? <ReviewToggle batchId={batchId} row={row} /> : null}
                        {row.review ? <VehicleOfRow row={row} /> : null}
                        {editable ? <LeftOutToggle batchId={batchId} row={row} /> : null}
                      </>
                    )}
                  </td>
                  {CELLS.map((f) => (
                    <Cell batchId={batchId} row={row} field={f} editable={editable && row.submissionId === null} />
                  ))}
                  <Operations row={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <nav class="pages" aria-label="Paginile previzualizării">
        {view.dupa !== undefined ? link(viewQuery({ stare: view.stare }), '« Primele rânduri') : null}
        {next ? link(next, 'Rândurile următoare »') : null}
      </nav>
    </>
  );
}
