import { IMPORT_FIELDS, REQUIRED_FIELDS } from '../../domain/import-header';
import { CATALOG } from '../../errors';
import { statusOf } from '../../http/status';
import type { LoadedBatch, ImportCommit, RowChange, ImportPreview, ImportRowRecord, StagingFailure, BatchSummary, OperationToMap } from '../../services/import';
import type { BatchAnswer, ColumnMappingAnswer, CommitAnswer, PreviewAnswer, RowChangeAnswer, RowView } from './answers';

// The API's forms of the import records: issue 4's field names, ISO timestamps.

const missingFields = (batch: LoadedBatch) => REQUIRED_FIELDS.filter((f) => batch.mappingState.mapping[f] === undefined);

/** A failed staging as an error answer's six keys. */
const presentFailure = (f: StagingFailure) => ({
  status: statusOf(f.cod),
  cod: f.cod,
  problema: CATALOG[f.cod].problema,
  cauza: f.cauza,
  fix: CATALOG[f.cod].fix,
  request_id: f.requestId,
});

/** What a batch not staged yet adds to its status: how far its staging got, or why it failed. */
function stagingState(batch: LoadedBatch): { rows_staged?: number; error?: ReturnType<typeof presentFailure> } {
  if (batch.status === 'staging' || batch.status === 'queued') return { rows_staged: batch.rowCount };
  if (batch.status === 'failed' && batch.error) return { error: presentFailure(batch.error) };
  return {};
}

/** The column mapping of a batch (`GET`/`POST /v1/import/{id}/column-mapping`). */
export function presentColumnMapping(batch: LoadedBatch): ColumnMappingAnswer {
  const { mapping, source, drift, observatii } = batch.mappingState;
  return {
    batch_id: batch.id,
    header: batch.header,
    header_signature: batch.headerSignature,
    /** Canonical field → 0-based column of `header`. */
    column_mapping: mapping,
    mapping_source: source,
    drift,
    /** What the upload read from the values, e.g. a column of registry codes taken as cod_prestatie. */
    observatii: observatii ?? [],
    missing_fields: missingFields(batch),
    fields: IMPORT_FIELDS,
  };
}

/**
 * The batch as the upload answers it: how the file was read, its sheets, and the mapping.
 * While `staging`, `row_count` (as `rows_staged`) counts the rows staged so far and `sheets`
 * describes the first part; both are the file's once `staged`.
 */
export function presentBatch(batch: LoadedBatch): BatchAnswer {
  const { kind, encoding, delimiter, size, dbf } = batch.fileMeta;
  return {
    ...presentColumnMapping(batch),
    status: batch.status,
    ...stagingState(batch),
    filename: batch.filename,
    file: {
      kind,
      encoding,
      delimiter,
      size,
      ...(dbf
        ? {
            dbf: {
              format: dbf.format,
              language_driver: dbf.languageDriver,
              code_page: dbf.codePage,
              code_page_from: dbf.codePageFrom,
              records: dbf.records,
              deleted: dbf.deleted,
              memo: dbf.memo,
              skipped_fields: dbf.skippedFields,
            },
          }
        : {}),
    },
    sheets: batch.sheets,
    row_count: batch.rowCount,
    created_at: batch.createdAt.toISOString(),
    committed_at: batch.committedAt?.toISOString() ?? null,
    purge_after: batch.purgeAfter?.toISOString() ?? null,
  };
}

const presentOperation = (op: OperationToMap) => ({ cod_op_service: op.codOpService, denumire: op.denumire, rows: op.rows, sugestie: op.suggestion });

function presentRow(row: ImportRowRecord): RowView {
  return {
    row_index: row.rowIndex,
    sheet: row.sheet,
    line: row.line,
    state: row.state,
    values: row.values,
    prestatii: row.prestatii,
    erori: row.erori,
    nemapate: row.nemapate,
    motiv: row.motiv,
    overridden_fields: row.overriddenFields,
    review: row.review,
    duplicate_of: row.duplicateOf,
    existing_submission: row.existing,
    submission_id: row.submissionId,
    vizita: row.visit ? { primul_rand: row.visit.head, randuri: row.visit.lines } : null,
  };
}

const presentTotals = (s: BatchSummary) => ({ counts: s.counts, n_to_commit: s.nToCommit, n_records: s.nRecords, rows_hash: s.rowsHash });

export function presentPreview(p: ImportPreview): PreviewAnswer {
  return {
    batch_id: p.batch.id,
    status: p.batch.status,
    ...stagingState(p.batch),
    total_rows: p.summary.total,
    ...presentTotals(p.summary),
    column_mapping: p.batch.mappingState.mapping,
    missing_fields: missingFields(p.batch),
    operations_to_map: p.operationsToMap.map(presentOperation),
    page: p.page,
    page_size: p.pageSize,
    pages: p.pages,
    rows: p.rows.map(presentRow),
  };
}

/** A row after an edit or a review choice, with the batch's new totals. */
export const presentRowChange = (change: RowChange): RowChangeAnswer => ({ row: presentRow(change.row), ...presentTotals(change.summary) });

export function presentCommit(commit: ImportCommit): CommitAnswer {
  const { attestation } = commit;
  return {
    batch_id: commit.batchId,
    status: 'committed',
    inserted: commit.inserted,
    by_status: commit.byStatus,
    skipped_conflict: commit.skippedConflict,
    not_committed: commit.notCommitted,
    counts: commit.counts,
    attestation: {
      rows_hash: attestation.rowsHash,
      n_confirmed: attestation.nConfirmed,
      confirmed_by: attestation.confirmedBy,
      created_at: attestation.createdAt.toISOString(),
    },
  };
}
