import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import type { RowState } from '../../domain/import-state';
import { stateReason } from '../../domain/import-state';
import { REQUIRED_FIELDS } from '../../domain/import-header';
import { loadBatch, type LoadedBatch } from './batch';
import { deriveBatch, type BatchDerivation, type RowOutcome } from './derive';
import { readRow, stagedRowsAt, type RowReading } from './rows';

/** One row as the preview shows it: resolved values, state, errors in the API's form, and why. */
export function rowView(reading: RowReading, outcome: RowOutcome) {
  const { content, prestatii, erori, nemapate, motiv } = reading.verdict;
  const { b64Image: _image, ...values } = content;
  return {
    row_index: reading.rowIndex,
    sheet: reading.sheet,
    line: reading.line,
    state: outcome.state,
    values,
    prestatii,
    erori,
    nemapate,
    motiv: stateReason(outcome, motiv),
    overridden_fields: reading.overridden,
    review: outcome.review,
    duplicate_of: outcome.duplicateOf,
    existing_submission: outcome.existing,
    submission_id: reading.submissionId,
  };
}
export type RowView = ReturnType<typeof rowView>;

/** The full view of the rows at `indexes` (a page): each is read again, with the batch-wide facts. */
export async function rowViews(ctx: AppContext, exec: Executor, batch: LoadedBatch, derivation: BatchDerivation, indexes: readonly number[]): Promise<RowView[]> {
  const staged = await stagedRowsAt(exec, batch.id, indexes);
  return staged.flatMap((row) => {
    const outcome = derivation.byIndex.get(row.row_index);
    return outcome ? [rowView(readRow(row, batch, derivation.resolution, derivation.now, ctx.keyring), outcome)] : [];
  });
}

export interface PreviewQuery {
  page: number;
  page_size: number;
  state?: RowState;
}

/**
 * Counts, `rows_hash` and the operations to map cover the whole batch; `rows` is one page
 * (optionally of one state). `n_to_commit` and `rows_hash` are what a commit must confirm.
 */
export async function previewImportBatch({ ctx, accountId, batchId, query }: { ctx: AppContext; accountId: number; batchId: number; query: PreviewQuery }) {
  const batch = await loadBatch(ctx.db, accountId, batchId);
  const derivation = await deriveBatch(ctx, ctx.db, batch);
  const selected = query.state ? derivation.outcomes.filter((o) => o.state === query.state) : derivation.outcomes;
  const start = (query.page - 1) * query.page_size;
  const page = selected.slice(start, start + query.page_size).map((o) => o.rowIndex);
  const { mapping } = batch.mappingState;
  return {
    batch_id: batch.id,
    status: batch.status,
    total_rows: derivation.outcomes.length,
    counts: derivation.counts,
    n_to_commit: derivation.nToCommit,
    rows_hash: derivation.rowsHash,
    column_mapping: mapping,
    missing_fields: REQUIRED_FIELDS.filter((f) => mapping[f] === undefined),
    operations_to_map: derivation.operations,
    page: query.page,
    page_size: query.page_size,
    pages: Math.max(1, Math.ceil(selected.length / query.page_size)),
    rows: await rowViews(ctx, ctx.db, batch, derivation, page),
  };
}
