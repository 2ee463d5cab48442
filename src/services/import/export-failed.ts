import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import { cellText } from '../../domain/import-cells';
import { COMMITTED_STATES, stateReason } from '../../domain/import-state';
import { csvLine } from '../audit/csv';
import { loadBatch } from './batch';
import { refreshDerived } from './freshness';
import { readRow, stagedRowsAt } from './rows';
import { inStates, rowOutcomes } from './states';

const CHUNK = 1000;

/**
 * The rows not committed, as CSV: where each was in the file, its state and why, then the
 * file's own columns as they were uploaded, so they can be fixed and uploaded again. Before
 * commit: the rows a commit would leave out; after it: the rows that were not stored. Cells go
 * through the shared CSV writer, which neutralises formulas (`=`, `+`, `-`, `@`).
 */
export async function exportFailedRows({ ctx, accountId, batchId }: { ctx: AppContext; accountId: number; batchId: number }) {
  return withTransaction(ctx, undefined, async (tx) => {
    const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
    const derivation = await refreshDerived(ctx, tx, batch);
    const filter = batch.status === 'committed' ? sql`submission_id IS NULL` : sql`NOT (${inStates(COMMITTED_STATES)})`;
    const outcomes = await rowOutcomes(tx, accountId, batch.id, filter);
    // A BOM so that Excel opens the diacritics as UTF-8.
    const lines = [`\ufeff${csvLine(['rand', 'foaie', 'linie', 'stare', 'motiv', ...batch.header])}`];
    for (let i = 0; i < outcomes.length; i += CHUNK) {
      const slice = outcomes.slice(i, i + CHUNK);
      const byIndex = new Map(slice.map((o) => [o.rowIndex, o]));
      for (const row of await stagedRowsAt(tx, ctx.keyring, batch.id, [...byIndex.keys()])) {
        const reading = readRow(row, batch, derivation.resolution, derivation.now, ctx.keyring);
        const outcome = byIndex.get(row.row_index)!;
        const cells = batch.header.map((_, c) => cellText(reading.cells[c]));
        lines.push(csvLine([row.row_index, row.sheet ?? '', reading.line ?? '', outcome.state, stateReason(outcome, reading.verdict.motiv) ?? '', ...cells]));
      }
    }
    return { filename: `import-${batch.id}-netrimise.csv`, body: lines.join(''), rows: outcomes.length };
  });
}
