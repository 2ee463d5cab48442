import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { stateReason, type RowState } from '../../domain/import-state';
import { hasAllRows, loadBatch, type LoadedBatch } from './batch';
import { refreshDerived, stagingDerivation, type Derivation } from './freshness';
import { nameLeftOut } from './left-out';
import { readRows, stagedRowsAt, type RowReading } from './rows';
import { batchSummary, operationsToMap, type RowOutcome } from './states';

/** One row of a preview: its canonical values (as the API would store them), state, errors, and why. */
export function importRow(reading: RowReading, outcome: RowOutcome) {
  const { content, prestatii, erori, nemapate, motiv } = reading.verdict;
  const { b64Image: _image, ...values } = content;
  return {
    rowIndex: reading.rowIndex,
    sheet: reading.sheet,
    line: reading.line,
    state: outcome.state,
    values,
    prestatii,
    erori,
    nemapate,
    motiv: stateReason(outcome, motiv),
    overriddenFields: reading.overridden,
    review: outcome.review,
    duplicateOf: outcome.duplicateOf,
    existing: outcome.existing,
    submissionId: reading.submissionId,
    visit: outcome.visit,
    leftOutByHand: outcome.leftOutByHand,
  };
}
export type ImportRowRecord = ReturnType<typeof importRow>;

/** The rows of `outcomes` (a page), decrypted to show their values: the only rows a preview decrypts. */
export async function importRows(ctx: AppContext, exec: Executor, batch: LoadedBatch, derivation: Derivation, outcomes: RowOutcome[]): Promise<ImportRowRecord[]> {
  const byIndex = new Map((await nameLeftOut(ctx, batch.accountId, outcomes)).map((o) => [o.rowIndex, o]));
  const staged = await stagedRowsAt(exec, ctx.keyring, batch.id, [...byIndex.keys()]);
  const readings = await readRows(staged, batch, derivation.resolution, derivation.now, ctx.keyring);
  return readings.map((reading) => importRow(reading, byIndex.get(reading.rowIndex)!));
}

export interface PreviewQuery {
  page: number;
  page_size: number;
  state?: RowState;
  /** Keyset paging (the dashboard): the rows after this row index, instead of `page`'s offset. */
  after?: number;
}

/**
 * Counts, `rows_hash` and the operations to map cover the whole batch, from the derived
 * columns; `rows` is one page (optionally of one state). `n_to_commit` and `rows_hash` are
 * what a commit must confirm. One transaction, so the page and the counts agree. A batch
 * still `staging` shows its first part, committed before the upload answered (`rows_staged`
 * tells how far the rest got), a `failed` one no rows and its `error`; neither is derived
 * again here (stagingDerivation).
 */
export async function previewImportBatch({ ctx, actor, batchId, query }: { ctx: AppContext; actor: Actor; batchId: number; query: PreviewQuery }) {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
    const derivation = hasAllRows(batch) ? await refreshDerived(ctx, tx, batch) : await stagingDerivation(ctx, tx, batch);
    const byState = query.state ? sql`state = ${query.state}` : sql`true`;
    const filter = query.after === undefined ? byState : sql`${byState} AND row_index > ${query.after}`;
    const offset = query.after === undefined ? (query.page - 1) * query.page_size : 0;
    const summary = await batchSummary(tx, accountId, batch.id, { filter, limit: query.page_size, offset });
    const selected = query.state ? summary.counts[query.state] : summary.total;
    const { page, ...totals } = summary;
    return {
      batch,
      summary: totals,
      operationsToMap: await operationsToMap(tx, accountId, batch.id, derivation.resolution),
      page: query.page,
      pageSize: query.page_size,
      pages: Math.max(1, Math.ceil(selected / query.page_size)),
      rows: await importRows(ctx, tx, batch, derivation, page),
    };
  });
}

export type ImportPreview = Awaited<ReturnType<typeof previewImportBatch>>;
