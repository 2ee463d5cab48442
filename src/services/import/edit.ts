import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import type { ImportField } from '../../domain/import-header';
import { mergeOverride, readOverride } from '../../domain/import-row';
import { NotFoundError } from '../../errors';
import { assertStaged, loadBatch } from './batch';
import { deriveBatch } from './derive';
import { rowViews } from './preview';

export type RowEdits = Partial<Record<ImportField, string | number | null>>;

/**
 * The row, locked with its batch, found through a join on the account: another account's
 * batch is the same 404 as a missing one. A committed batch is 409.
 */
async function lockRow(tx: Executor, accountId: number, batchId: number, rowIndex: number) {
  const [row] = await tx.execute<{ override_json: string | null; status: string; committed_at: string | null }>(sql`
    SELECT r.override_json, b.status, b.committed_at FROM import_rows r
    JOIN import_batches b ON b.id = r.batch_id
    WHERE r.batch_id = ${batchId} AND r.row_index = ${rowIndex} AND b.account_id = ${accountId}
    FOR UPDATE OF r, b`);
  if (!row) throw new NotFoundError();
  assertStaged({ status: row.status, committedAt: row.committed_at ? new Date(row.committed_at) : null });
  return row;
}

/** The row as the preview now shows it (after the change), with the batch-wide facts. */
async function currentRow(ctx: AppContext, accountId: number, batchId: number, rowIndex: number) {
  const batch = await loadBatch(ctx.db, accountId, batchId);
  const derivation = await deriveBatch(ctx, ctx.db, batch);
  const [row] = await rowViews(ctx, ctx.db, batch, derivation, [rowIndex]);
  return { row: row!, counts: derivation.counts, n_to_commit: derivation.nToCommit, rows_hash: derivation.rowsHash };
}

/**
 * Stores the edits as the row's encrypted override (an empty value clears that field). An
 * override that no longer decrypts is ignored, as if there were none.
 */
export async function editImportRow({ ctx, accountId, batchId, rowIndex, edits, requestId }: { ctx: AppContext; accountId: number; batchId: number; rowIndex: number; edits: RowEdits; requestId: string }) {
  await withTransaction(ctx, undefined, async (tx) => {
    const row = await lockRow(tx, accountId, batchId, rowIndex);
    let current: unknown = null;
    try {
      current = row.override_json ? JSON.parse(ctx.keyring.decrypt(row.override_json)) : null;
    } catch {
      current = null;
    }
    const next = mergeOverride(readOverride(current), edits);
    const stored = Object.keys(next).length > 0 ? ctx.keyring.encrypt(JSON.stringify(next)) : null;
    await tx.execute(sql`UPDATE import_rows SET override_json = ${stored} WHERE batch_id = ${batchId} AND row_index = ${rowIndex}`);
  });
  ctx.journal.write({ event: 'import_rand_editat', requestId, accountId, data: { batch_id: batchId, row_index: rowIndex, fields: Object.keys(edits) } });
  return currentRow(ctx, accountId, batchId, rowIndex);
}

/** Includes (or holds again) a row held for review: its odometer is lower than one already recorded. */
export async function setRowReview({ ctx, accountId, batchId, rowIndex, include, requestId }: { ctx: AppContext; accountId: number; batchId: number; rowIndex: number; include: boolean; requestId: string }) {
  await withTransaction(ctx, undefined, async (tx) => {
    await lockRow(tx, accountId, batchId, rowIndex);
    await tx.execute(sql`UPDATE import_rows SET include_review = ${include ? 1 : 0} WHERE batch_id = ${batchId} AND row_index = ${rowIndex}`);
  });
  ctx.journal.write({ event: 'import_rand_revizuit', requestId, accountId, data: { batch_id: batchId, row_index: rowIndex, include } });
  return currentRow(ctx, accountId, batchId, rowIndex);
}
