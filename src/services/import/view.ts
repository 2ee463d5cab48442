import type { AppContext } from '../../context';
import { IMPORT_FIELDS, REQUIRED_FIELDS } from '../../domain/import-header';
import { loadBatch, type LoadedBatch } from './batch';
import { failureView } from './staging-failure';

/** The column mapping of a batch as the API shows it. */
export function mappingView(batch: LoadedBatch) {
  const { mapping, source, drift } = batch.mappingState;
  return {
    batch_id: batch.id,
    header: batch.header,
    header_signature: batch.headerSignature,
    /** Canonical field → 0-based column of `header`. */
    column_mapping: mapping,
    mapping_source: source,
    drift,
    /** What the upload read from the values, e.g. a column of registry codes taken as cod_prestatie. */
    observatii: batch.mappingState.observatii ?? [],
    missing_fields: REQUIRED_FIELDS.filter((f) => mapping[f] === undefined),
    fields: IMPORT_FIELDS,
  };
}

/** What a batch not staged yet adds to its status: how far its staging got, or why it failed. */
export function stagingState(batch: LoadedBatch): { rows_staged?: number; error?: ReturnType<typeof failureView> } {
  if (batch.status === 'staging') return { rows_staged: batch.rowCount };
  if (batch.status === 'failed') return { error: failureView(batch.error) };
  return {};
}

/**
 * The batch as the upload answers it: how the file was read, its sheets, and the mapping.
 * While `staging`, `row_count` (as `rows_staged`) counts the rows staged so far and `sheets`
 * describes the first part; both are the file's once `staged`.
 */
export function describeBatch(batch: LoadedBatch) {
  return {
    ...mappingView(batch),
    status: batch.status,
    ...stagingState(batch),
    filename: batch.filename,
    file: { kind: batch.fileMeta.kind, encoding: batch.fileMeta.encoding, delimiter: batch.fileMeta.delimiter, size: batch.fileMeta.size },
    sheets: batch.sheets,
    row_count: batch.rowCount,
    created_at: batch.createdAt.toISOString(),
    committed_at: batch.committedAt?.toISOString() ?? null,
    purge_after: batch.purgeAfter?.toISOString() ?? null,
  };
}

export async function batchView(ctx: AppContext, batchId: number, accountId: number) {
  return describeBatch(await loadBatch(ctx.db, accountId, batchId));
}
