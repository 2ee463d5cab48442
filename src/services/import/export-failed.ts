import type { AppContext } from '../../context';
import { cellText } from '../../domain/import-cells';
import { COMMITTED_STATES, stateReason } from '../../domain/import-state';
import { csvLine } from '../audit/csv';
import { loadBatch } from './batch';
import { deriveBatch, type RowOutcome } from './derive';
import { readRow, stagedRowsAt } from './rows';

const CHUNK = 1000;

/** Before commit: the rows a commit would leave out; after it: the rows that were not stored. */
function failed(outcome: RowOutcome, committed: boolean): boolean {
  return committed ? outcome.submissionId === null : !COMMITTED_STATES.has(outcome.state);
}

/**
 * The rows not committed, as CSV: where each was in the file, its state and why, then the
 * file's own columns as they were uploaded, so they can be fixed and uploaded again. Cells go
 * through the shared CSV writer, which neutralises formulas (`=`, `+`, `-`, `@`).
 */
export async function exportFailedRows({ ctx, accountId, batchId }: { ctx: AppContext; accountId: number; batchId: number }) {
  const batch = await loadBatch(ctx.db, accountId, batchId);
  const derivation = await deriveBatch(ctx, ctx.db, batch);
  const committed = batch.status === 'committed';
  const rows = derivation.outcomes.filter((o) => failed(o, committed));
  // A BOM so that Excel opens the diacritics as UTF-8.
  const lines = [`\ufeff${csvLine(['rand', 'foaie', 'linie', 'stare', 'motiv', ...batch.header])}`];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const staged = await stagedRowsAt(ctx.db, batch.id, rows.slice(i, i + CHUNK).map((o) => o.rowIndex));
    for (const row of staged) {
      const reading = readRow(row, batch, derivation.resolution, derivation.now, ctx.keyring);
      const outcome = derivation.byIndex.get(row.row_index)!;
      const reason = stateReason(outcome, reading.verdict.motiv) ?? '';
      const cells = batch.header.map((_, c) => cellText(reading.cells[c]));
      lines.push(csvLine([row.row_index, row.sheet ?? '', reading.line ?? '', outcome.state, reason, ...cells]));
    }
  }
  return { filename: `import-${batch.id}-netrimise.csv`, body: lines.join(''), rows: rows.length };
}
