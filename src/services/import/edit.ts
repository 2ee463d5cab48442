import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Actor, AppContext } from '../../context';
import { actorLabel, withTransaction } from '../../context';
import { journalActor } from '../../journal/actor';
import type { ImportField } from '../../domain/import-header';
import { mergeOverride, readOverride } from '../../domain/import-row';
import { NotFoundError } from '../../errors';
import { assertComplete, assertStaged, loadBatch, type LoadedBatch } from './batch';
import { rowFacts, writeFacts } from './facts';
import { refreshDerived, type Derivation } from './freshness';
import { importRows } from './preview';
import { readSealed } from './raw-blocks';
import { applyReadings, readingsForVins } from './readings';
import { readRow, stagedRowsAt } from './rows';
import { batchSummary } from './states';

export type RowEdits = Partial<Record<ImportField, string | number | null>>;

/**
 * The row, locked with its batch: another account's batch is the same 404 as a missing one, a
 * batch still staging (or failed) or committed is 409. The batch is locked first, as the
 * commit and a staging's progress take it, and a row only in a batch whose rows are all there.
 */
async function lockRow(tx: Executor, accountId: number, batchId: number, rowIndex: number) {
  const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
  assertComplete(batch);
  const [row] = await tx.execute<{ override_json: string | null }>(sql`
    SELECT override_json FROM import_rows WHERE batch_id = ${batch.id} AND row_index = ${rowIndex} FOR UPDATE`);
  if (!row) throw new NotFoundError();
  assertStaged(batch);
  return { batch, row };
}

/** An edit derives its row again (only that row), with the readings of its VIN, which may be another now. */
async function rederiveRow(ctx: AppContext, tx: Executor, batch: LoadedBatch, derivation: Derivation, rowIndex: number) {
  const [staged] = await stagedRowsAt(tx, ctx.keyring, batch.id, [rowIndex]);
  const reading = readRow(staged!, batch, derivation.resolution, derivation.now, ctx.keyring);
  await writeFacts(tx, batch.id, [rowFacts(rowIndex, reading, derivation.vinHmac)], true);
  const { vin } = reading.verdict.content;
  await applyReadings(tx, derivation.vinHmac, batch.id, await readingsForVins(tx, batch.accountId, vin ? [vin] : []), rowIndex);
}

/** The row as the preview now shows it (after the change), with the batch-wide facts. */
async function currentRow(ctx: AppContext, tx: Executor, batch: LoadedBatch, derivation: Derivation, rowIndex: number) {
  const { page, ...summary } = await batchSummary(tx, batch.accountId, batch.id, { filter: sql`row_index = ${rowIndex}`, limit: 1, offset: 0 });
  const [row] = await importRows(ctx, tx, batch, derivation, page);
  return { row: row!, summary };
}

/** A row after an edit or a review choice, and the batch's totals after it. */
export type RowChange = Awaited<ReturnType<typeof currentRow>>;

/**
 * Stores the edits as the row's encrypted override (an empty value clears that field). An
 * override that no longer decrypts is ignored, as if there were none.
 */
export async function editImportRow({
  ctx,
  actor,
  batchId,
  rowIndex,
  edits,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  rowIndex: number;
  edits: RowEdits;
  requestId: string;
}) {
  const { accountId } = actor;
  const result = await withTransaction(ctx, undefined, async (tx) => {
    const { batch, row } = await lockRow(tx, accountId, batchId, rowIndex);
    const current = row.override_json ? readSealed(ctx.keyring, row.override_json) : null;
    const next = mergeOverride(readOverride(current), edits);
    const stored = Object.keys(next).length > 0 ? ctx.keyring.encrypt(JSON.stringify(next)) : null;
    await tx.execute(sql`UPDATE import_rows SET override_json = ${stored} WHERE batch_id = ${batchId} AND row_index = ${rowIndex}`);
    const derivation = await refreshDerived(ctx, tx, batch);
    await rederiveRow(ctx, tx, batch, derivation, rowIndex);
    return currentRow(ctx, tx, batch, derivation, rowIndex);
  });
  ctx.journal.write({ event: 'import_rand_editat', requestId, accountId, data: { batch_id: batchId, row_index: rowIndex, fields: Object.keys(edits) } });
  return result;
}

/** Includes (or holds again) a row held for review: its odometer is lower than one already recorded. */
export async function setRowReview({
  ctx,
  actor,
  batchId,
  rowIndex,
  include,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  rowIndex: number;
  include: boolean;
  requestId: string;
}) {
  const { accountId } = actor;
  const result = await withTransaction(ctx, undefined, async (tx) => {
    const { batch } = await lockRow(tx, accountId, batchId, rowIndex);
    await tx.execute(sql`UPDATE import_rows SET include_review = ${include ? 1 : 0} WHERE batch_id = ${batchId} AND row_index = ${rowIndex}`);
    return currentRow(ctx, tx, batch, await refreshDerived(ctx, tx, batch), rowIndex);
  });
  ctx.journal.write({ event: 'import_rand_revizuit', requestId, accountId, data: { batch_id: batchId, row_index: rowIndex, include } });
  return result;
}

/**
 * Leaves a row out of the commit by hand (or takes it back in): a line the clerk knows is no
 * service, or not theirs to report. Who left it out is kept (the actor's label, no personal datum
 * in the row) and named in the preview and the left-out export.
 */
export async function setRowLeftOut({
  ctx,
  actor,
  batchId,
  rowIndex,
  leftOut,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  rowIndex: number;
  leftOut: boolean;
  requestId: string;
}) {
  const { accountId } = actor;
  const result = await withTransaction(ctx, undefined, async (tx) => {
    const { batch } = await lockRow(tx, accountId, batchId, rowIndex);
    await tx.execute(sql`UPDATE import_rows SET left_out_by = ${leftOut ? actorLabel(actor) : null} WHERE batch_id = ${batchId} AND row_index = ${rowIndex}`);
    return currentRow(ctx, tx, batch, await refreshDerived(ctx, tx, batch), rowIndex);
  });
  ctx.journal.write({ event: 'import_rand_lasat_deoparte', requestId, accountId, data: { batch_id: batchId, row_index: rowIndex, left_out: leftOut, ...journalActor(actor) } });
  return result;
}
