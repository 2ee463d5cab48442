import { ROW_STATES } from '../../domain/import-state';
import { STATUS_LABEL, type SubmissionStatus } from '../../domain/statuses';
import type { LoadedBatch, BatchSummary, ImportRowRecord } from '../../services/import';
import { inClerkWords } from '../ui/field-labels';
import { countOf, showInstant } from '../ui/format';
import { StatusChip } from '../ui/status-chip';
import { LEFT_OUT_REASON, ROW_STATE_FATE, ROW_STATE_LABEL } from './labels';
import { IN_TURN } from './in-turn';

const rows = (n: number) => countOf(n, 'un rând', 'rânduri');

/**
 * The count a clerk may type: digits, or grouped by three as the screen shows it ("20.001",
 * "20 001", with a no-break space too). The form's `pattern` and the route's check both use it.
 */
export const TYPED_COUNT = '[0-9]{1,3}(?:[. \\u00a0\\u202f]?[0-9]{3})*';
const TYPED_COUNT_WHOLE = new RegExp(`^(?:${TYPED_COUNT})$`, 'u');

/** The number typed in the commit's box, or null when it is not a count as the screen writes one. */
export function readTypedCount(typed: string): number | null {
  const text = typed.trim();
  if (!TYPED_COUNT_WHOLE.test(text)) return null;
  const n = Number(text.replace(/[^0-9]/g, ''));
  return Number.isSafeInteger(n) ? n : null;
}

/** The rows left out, as a file to fix and upload again: in the file's own columns, with the reason (services/import/export-failed.ts). */
export function LeftOutDownload({ batchId }: { batchId: number }) {
  return (
    <p class="downloads">
      Rândurile lăsate deoparte, cu motivul:{' '}
      <a href={`/import/${batchId}/netrimise?format=xlsx`} download>
        descărcați xlsx
      </a>{' '}
      ·{' '}
      <a href={`/import/${batchId}/netrimise?format=csv`} download>
        csv
      </a>
    </p>
  );
}

/** What a commit will do with each state's rows, and why; only the states the batch has. */
function Summary({ summary }: { summary: BatchSummary }) {
  return (
    <ul class="commit-summary">
      {ROW_STATES.filter((s) => summary.counts[s] > 0).map((s) => (
        <li class={`r-${s}`}>
          <strong>{rows(summary.counts[s])}</strong> {ROW_STATE_LABEL[s].toLowerCase()}: {summary.counts[s] === 1 ? ROW_STATE_FATE[s].one : ROW_STATE_FATE[s].many}.
        </li>
      ))}
    </ul>
  );
}

/**
 * The commit: the summary, then the number typed by the clerk. The gate is the API's: the
 * typed count and the `rows_hash` of what this screen showed must both match the batch now.
 */
export function CommitForm({ batchId, summary }: { batchId: number; summary: BatchSummary }) {
  const n = summary.nToCommit;
  return (
    <section class="import-part" aria-labelledby="confirma-titlu">
      <h2 id="confirma-titlu">Confirmare</h2>
      <Summary summary={summary} />
      {summary.nRecords > 0 ? (
        <p class="records">
          Registrul primește <strong>{countOf(summary.nRecords, 'o înregistrare', 'înregistrări')}</strong>: una pe vizită (rândurile cu același VIN, aceeași dată și același
          kilometraj sunt o singură vizită).
        </p>
      ) : null}
      {summary.total > n ? <LeftOutDownload batchId={batchId} /> : null}
      {n === 0 ? (
        <p class="empty">Niciun rând de trimis încă: rezolvați rândurile de mai sus.</p>
      ) : (
        <form class="commit" hx-post={`/_import/${batchId}/confirma`} hx-target="#import" hx-swap="outerMorph" {...IN_TURN}>
          <input type="hidden" name="rows_hash" value={summary.rowsHash} />
          <label for="numar">Ca să confirmați, scrieți numărul de rânduri care intră în Trimiteri ({n.toLocaleString('ro-RO')})</label>
          <span class="commit-row">
            <input name="numar" id="numar" inputmode="numeric" pattern={TYPED_COUNT} autocomplete="off" required maxlength={15} />
            <button type="submit">Confirmă importul: {rows(n)}</button>
          </span>
        </form>
      )}
    </section>
  );
}

const PENDING: ReadonlySet<SubmissionStatus> = new Set(['queued', 'sending']);

/**
 * After the commit: how the import's submissions stand, polled every 3 s until none is
 * waiting to be sent (then no poll is rendered, and it stops).
 */
export function Followed({ batchId, statuses }: { batchId: number; statuses: Partial<Record<SubmissionStatus, number>> }) {
  const pending = Object.entries(statuses).some(([s, n]) => PENDING.has(s as SubmissionStatus) && (n ?? 0) > 0);
  const poll = pending ? { 'hx-get': `/_import/${batchId}/urmarire`, 'hx-trigger': 'every 3s', 'hx-target': 'this', 'hx-swap': 'outerHTML', 'hx-status:5xx': 'swap:none' } : {};
  return (
    <div id="urmarire" class="followed" aria-live="polite" {...poll}>
      <p>
        {(Object.keys(STATUS_LABEL) as SubmissionStatus[])
          .filter((s) => (statuses[s] ?? 0) > 0)
          .map((s) => (
            <span class={`chip s-${s}`}>
              {STATUS_LABEL[s]} <span class="n">{statuses[s]}</span>
            </span>
          ))}
      </p>
      <p class="muted small">{pending ? 'Se actualizează automat până când toate sunt trimise.' : 'Nimic nu mai așteaptă trimiterea.'}</p>
    </div>
  );
}

/** A committed import: when, how many rows went, and they followed until sent; the rows left out to download. */
export function Committed({ batch, summary, statuses }: { batch: LoadedBatch; summary: BatchSummary; statuses: Partial<Record<SubmissionStatus, number>> }) {
  const made = Object.values(statuses).reduce((a, b) => a + (b ?? 0), 0);
  const leftOut = Math.max(0, summary.total - summary.nLinked);
  return (
    <section class="import-part" aria-labelledby="trimis-titlu">
      <h2 id="trimis-titlu">Confirmat la {showInstant(batch.committedAt)}</h2>
      <p>
        {countOf(summary.nLinked, 'Un rând a intrat', 'rânduri au intrat')} în Trimiteri
        {made === summary.nLinked ? '' : `, ca ${countOf(made, 'o trimitere', 'trimiteri')} (una pe vizită)`};{' '}
        {leftOut === 0 ? 'niciunul nu a rămas deoparte' : countOf(leftOut, 'un rând a rămas deoparte', 'rânduri au rămas deoparte')}.
      </p>
      <Followed batchId={batch.id} statuses={statuses} />
      <p>
        <a href="/#lista-titlu">Urmăriți-le în Trimiteri</a>
      </p>
      {leftOut > 0 ? <LeftOutDownload batchId={batch.id} /> : null}
    </section>
  );
}

/**
 * A row of a committed import: the state now of the submission it became, as Trimiteri shows
 * it, with its link; or why it did not become one (the reason its state gives now).
 */
export function RowAfterCommit({ row, submissions }: { row: ImportRowRecord; submissions: ReadonlyMap<number, SubmissionStatus> }) {
  if (row.submissionId !== null) {
    const status = submissions.get(row.submissionId);
    if (!status) return <span class="chip r-left-out">Ștearsă din Trimiteri</span>;
    return (
      <>
        <StatusChip status={status} />
        <p class="small">
          <a href={`/trimiteri/${row.submissionId}`}>Trimiterea #{row.submissionId}</a>
        </p>
      </>
    );
  }
  const existing = row.state === 'already_sent' ? row.existing : null;
  return (
    <>
      <span class="chip r-left-out">Lăsat deoparte</span>
      {/* A line left out says its own reason (a total, by whom), not the state's general one. */}
      {row.state === 'left_out' && row.motiv ? null : <p class="muted small">{LEFT_OUT_REASON[row.state]}.</p>}
      {row.motiv && !existing ? <p class="muted small">{inClerkWords(row.motiv)}</p> : null}
      {existing ? (
        <p class="small">
          <a href={`/trimiteri/${existing.id}`}>Trimiterea #{existing.id}</a> ({STATUS_LABEL[existing.status as SubmissionStatus] ?? existing.status})
        </p>
      ) : null}
    </>
  );
}
