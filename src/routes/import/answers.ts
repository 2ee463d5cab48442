import { z } from 'zod';
import { IMPORT_FIELDS } from '../../domain/import-header';
import { ROW_STATES } from '../../domain/import-state';
import { ErrorEnvelope } from '../../http/envelope';
import { SuggestionView } from '../mapari/schemas';
import { ContentErrorView, ResolvedItemView } from '../prezentari/schemas';

// The answers of /v1/import as zod schemas: present.ts is typed by them and the OpenAPI
// document is generated from them. A row's `values` are the submission content the row reads
// as (the API's field names); a sheet's summary is described loosely (its form follows the file).

const Instant = z.iso.datetime();
const Counts = z.object(Object.fromEntries(ROW_STATES.map((s) => [s, z.number().int()])) as Record<(typeof ROW_STATES)[number], z.ZodNumber>);
const ColumnMappingView = z.object(
  Object.fromEntries(IMPORT_FIELDS.map((f) => [f, z.number().int().optional()])) as Record<(typeof IMPORT_FIELDS)[number], z.ZodOptional<z.ZodNumber>>,
);
const BatchStatus = z.enum(['queued', 'staging', 'staged', 'committed', 'failed']);

export const ColumnMappingAnswer = z.object({
  batch_id: z.number().int(),
  header: z.array(z.string()),
  header_signature: z.string(),
  column_mapping: ColumnMappingView,
  mapping_source: z.enum(['saved', 'suggested']),
  drift: z.object({ saved_signature: z.string(), columns_missing: z.array(z.string()), columns_new: z.array(z.string()) }).nullable(),
  observatii: z.array(z.string()),
  missing_fields: z.array(z.enum(IMPORT_FIELDS)),
  fields: z.array(z.enum(IMPORT_FIELDS)).readonly(),
});
export type ColumnMappingAnswer = z.infer<typeof ColumnMappingAnswer>;

/** How far a staging got (`staging`), or why it failed (`failed`). */
const StagingState = z.object({ rows_staged: z.number().int().optional(), error: ErrorEnvelope.optional() });

export const BatchAnswer = ColumnMappingAnswer.extend({
  ...StagingState.shape,
  status: BatchStatus,
  filename: z.string().nullable(),
  file: z.object({
    kind: z.enum(['xlsx', 'csv', 'dbf']),
    encoding: z.string().nullable(),
    delimiter: z.string().nullable(),
    size: z.number().int(),
    // Additive, dbf only: how the table was read.
    dbf: z
      .object({
        format: z.string(),
        language_driver: z.number().int(),
        code_page: z.number().int(),
        code_page_from: z.enum(['antet', 'ales', 'text']),
        records: z.number().int(),
        deleted: z.number().int(),
        memo: z.enum(['dbt', 'fpt']).nullable(),
        skipped_fields: z.array(z.string()),
      })
      .optional(),
  }),
  sheets: z.unknown(),
  row_count: z.number().int(),
  created_at: Instant,
  committed_at: Instant.nullable(),
  purge_after: Instant.nullable(),
});
export type BatchAnswer = z.infer<typeof BatchAnswer>;

export const RowView = z.object({
  row_index: z.number().int(),
  sheet: z.string().nullable(),
  line: z.number().int().nullable(),
  state: z.enum(ROW_STATES),
  values: z.record(z.string(), z.unknown()),
  prestatii: z.array(ResolvedItemView),
  erori: z.array(ContentErrorView),
  nemapate: z.array(z.string()),
  motiv: z.string().nullable(),
  overridden_fields: z.array(z.string()),
  review: z.object({ data: z.string(), odometru: z.number(), inclus: z.boolean() }).nullable(),
  duplicate_of: z.number().int().nullable(),
  existing_submission: z.object({ id: z.number().int(), status: z.string() }).nullable(),
  submission_id: z.number().int().nullable(),
  // Additive: the service visit the line belongs to (lines with the same VIN, date and odometers
  // make one record): its first line and how many lines it has. Null for a line left out.
  vizita: z.object({ primul_rand: z.number().int(), randuri: z.number().int() }).nullable(),
});
export type RowView = z.infer<typeof RowView>;

// n_to_commit counts rows (what a commit confirms, as the spec has it); n_records (additive) the
// records the commit sends, one per visit.
const Totals = z.object({ counts: Counts, n_to_commit: z.number().int(), n_records: z.number().int(), rows_hash: z.string() });

export const PreviewAnswer = z.object({
  batch_id: z.number().int(),
  status: BatchStatus,
  ...StagingState.shape,
  total_rows: z.number().int(),
  ...Totals.shape,
  column_mapping: ColumnMappingView,
  missing_fields: z.array(z.enum(IMPORT_FIELDS)),
  operations_to_map: z.array(z.object({ cod_op_service: z.string(), denumire: z.string(), rows: z.number().int(), sugestie: SuggestionView.nullable() })),
  page: z.number().int(),
  page_size: z.number().int(),
  pages: z.number().int(),
  rows: z.array(RowView),
});
export type PreviewAnswer = z.infer<typeof PreviewAnswer>;

export const RowChangeAnswer = z.object({ row: RowView, ...Totals.shape });
export type RowChangeAnswer = z.infer<typeof RowChangeAnswer>;

export const CommitAnswer = z.object({
  batch_id: z.number().int(),
  status: z.literal('committed'),
  inserted: z.number().int(),
  by_status: z.object({ queued: z.number().int(), needs_data: z.number().int() }),
  skipped_conflict: z.number().int(),
  not_committed: z.number().int(),
  counts: Counts,
  attestation: z.object({ rows_hash: z.string(), n_confirmed: z.number().int(), confirmed_by: z.string().nullable(), created_at: Instant }),
});
export type CommitAnswer = z.infer<typeof CommitAnswer>;
