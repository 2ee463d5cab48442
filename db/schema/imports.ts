import type { ImportBatchStatus } from '../../src/domain/import-state';
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const importBatches = pgTable(
  'import_batches',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id').notNull(),
    filename: text('filename'),
    header: jsonb('header').notNull(),
    headerSignature: text('header_signature').notNull(),
    sheets: jsonb('sheets'),
    columnMapping: jsonb('column_mapping'),
    // How the upload was read: { kind, encoding, delimiter, date1904, size }.
    fileMeta: jsonb('file_meta'),
    status: text('status').$type<ImportBatchStatus>().notNull().default('staged'),
    rowCount: integer('row_count').notNull().default(0),
    committedAt: timestamp('committed_at', { withTimezone: true }),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // What the rows' derived columns were computed against (services/import/fingerprint.ts).
    derivedFp: jsonb('derived_fp'),
    // The batch's key for import_rows.vin_hmac, encrypted with the service key.
    vinKeyEnc: text('vin_key_enc'),
    // Why a stager could not stage the file (status 'failed'): { status, cod, cauza }.
    error: jsonb('error'),
    // Who uploaded it (context.ts actorLabel: an API key or a dashboard user), for the list of earlier imports.
    createdBy: text('created_by'),
  },
  (t) => [index('import_batches_account_idx').on(t.accountId), index('import_batches_purge_idx').on(t.purgeAfter)],
);

export const importRows = pgTable(
  'import_rows',
  {
    // No foreign key: its check ran once per row of a 100,000-row COPY (most of what Postgres
    // spent on an upload). Rows are only written by a transaction that also creates or updates
    // (so locks) their batch, and a trigger deletes a batch's rows with it (migration 0006).
    batchId: integer('batch_id').notNull(),
    // 1, 2, ... in file order, across the staged sheets.
    rowIndex: integer('row_index').notNull(),
    sheet: text('sheet'),
    // Raw cells, envelope-encrypted, of a row staged before import_row_blocks; null since.
    rawEnc: text('raw_enc'),
    overrideJson: text('override_json'),
    includeReview: integer('include_review').notNull().default(0),
    submissionId: bigint('submission_id', { mode: 'number' }),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
    // Derived once (upload, edit, or a stale fingerprint), never personal data: the preview
    // and the commit gate are computed from these without decrypting a row.
    verdict: text('verdict'),
    idemKey: text('idem_key'),
    legacyKey: text('legacy_key'),
    // Resolved registry codes, comma-joined as rows_hash hashes them.
    codes: text('codes'),
    // Unresolved workshop codes with their names: [[code, name], ...].
    unmapped: jsonb('unmapped'),
    dataPrestatie: text('data_prestatie'),
    odometruFinal: doublePrecision('odometru_final'),
    // What the verdict depends on: codes a mapping may resolve, items left to the text rules.
    clientCodes: jsonb('client_codes'),
    ruleBound: boolean('rule_bound'),
    // HMAC of the VIN (key derived from the service key): matches new readings, reveals no VIN.
    vinHmac: text('vin_hmac'),
    recordedOdometru: doublePrecision('recorded_odometru'),
    recordedData: text('recorded_data'),
    // One service visit, one record: lines with the same VIN, date and odometers share this key
    // (an HMAC under the batch's VIN key, like vin_hmac); null for a line that can be no visit's.
    visitKey: text('visit_key'),
    // The plate under the same HMAC: the lines of one visit must not name two plates.
    plateHmac: text('plate_hmac'),
    // The line's only content error is its empty plate: another line of its visit may give it.
    plateMissing: boolean('plate_missing'),
    // Why the line is no service (a total, a note, a repeated header), derived with the facts.
    leftOut: text('left_out'),
    // Who left the line out by hand (the actor's label), null while it is in.
    leftOutBy: text('left_out_by'),
  },
  (t) => [primaryKey({ name: 'import_rows_pkey', columns: [t.batchId, t.rowIndex] })],
);

/**
 * The raw cells of a batch's rows, ROWS_PER_BLOCK rows per block (services/import/raw-blocks.ts):
 * compressed and envelope-encrypted together, personal data at rest. One encryption per block
 * instead of one per row: most of an upload's cost, and half of what it stored, was that.
 */
export const importRowBlocks = pgTable(
  'import_row_blocks',
  {
    batchId: integer('batch_id')
      .notNull()
      .references(() => importBatches.id, { onDelete: 'cascade' }),
    blockNo: integer('block_no').notNull(),
    // The row_index of its first row; its rows run to the next block's first. Null in a block
    // written before blocks closed at a size (and by a release of then, during an upgrade): its
    // rows are then blockNo × ROWS_PER_BLOCK + 1 ... (blockNo + 1) × ROWS_PER_BLOCK.
    firstRow: integer('first_row'),
    rawEnc: text('raw_enc').notNull(),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
  },
  (t) => [primaryKey({ name: 'import_row_blocks_pkey', columns: [t.batchId, t.blockNo] }), index('import_row_blocks_purge_idx').on(t.purgeAfter)],
);

/**
 * An uploaded file waiting for a stager, or being staged (services/import/stager.ts): its
 * claim, and its bytes in import_upload_pieces. Kept with its batch (the worker's purge, at the
 * rows' purge_after); a failed batch's pieces are deleted.
 */
export const importUploads = pgTable(
  'import_uploads',
  {
    batchId: integer('batch_id')
      .primaryKey()
      .references(() => importBatches.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
    // The sheets the upload chose by name (none: the default choice).
    sheets: jsonb('sheets').notNull(),
    // A .dbf table's code page chosen by the clerk, over its header's (none: the header's).
    codePage: integer('code_page'),
    // The pieces hold the file deflated (raw deflate): a csv or .dbf shrinks 5–10 times, so it
    // crosses the database twice in a fraction of the time; an xlsx, a zip already, is kept as it is.
    deflated: boolean('deflated').notNull().default(false),
    requestId: text('request_id'),
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
    // The stager staging it and its last sign of life; a claim whose heartbeat is older than
    // GATEWAY_IMPORT_STALE_S is taken again (or failed once it was taken too often).
    claimedBy: text('claimed_by'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    claims: integer('claims').notNull().default(0),
  },
  (t) => [index('import_uploads_account_claimed_idx').on(t.accountId, t.claimedAt)],
);

/**
 * An uploaded file's bytes in pieces of UPLOAD_PIECE_BYTES, each envelope-encrypted like every
 * staged row, so that any stager of the deployment can stage it. In pieces because one 15 MB
 * file's ciphertext, built and sent as one value, held the server's event loop for a few hundred
 * milliseconds; a piece is a millisecond or two.
 */
export const importUploadPieces = pgTable(
  'import_upload_pieces',
  {
    batchId: integer('batch_id')
      .notNull()
      .references(() => importUploads.batchId, { onDelete: 'cascade' }),
    piece: integer('piece').notNull(),
    pieceEnc: text('piece_enc').notNull(),
  },
  (t) => [primaryKey({ name: 'import_upload_pieces_pkey', columns: [t.batchId, t.piece] })],
);

export const columnMappings = pgTable(
  'column_mappings',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id').notNull(),
    signature: text('signature').notNull(),
    header: jsonb('header').notNull(),
    mapping: jsonb('mapping').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('column_mappings_account_sig_uq').on(t.accountId, t.signature), index('column_mappings_account_updated_idx').on(t.accountId, t.updatedAt)],
);

export const importAttestations = pgTable('import_attestations', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  batchId: integer('batch_id')
    .notNull()
    .unique()
    .references(() => importBatches.id, { onDelete: 'cascade' }),
  accountId: integer('account_id').notNull(),
  rowsHash: text('rows_hash').notNull(),
  nConfirmed: integer('n_confirmed').notNull(),
  confirmedBy: text('confirmed_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Which of the account's submissions have the VIN of a batch row, by the batch's VIN HMAC
 * (the rows keep no VIN): the preview compares each row's resolved record (date, final
 * odometer, set of registry codes) with these submissions as they are now, so a service sent
 * through the API with other codes of the workshop is seen as already sent
 * (services/import/sent-records.ts). Filled as the file is staged, and with each newer submission.
 */
export const importBatchVinSubmissions = pgTable(
  'import_batch_vin_submissions',
  {
    batchId: integer('batch_id')
      .notNull()
      .references(() => importBatches.id, { onDelete: 'cascade' }),
    vinHmac: text('vin_hmac').notNull(),
    submissionId: bigint('submission_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'import_batch_vin_submissions_pkey', columns: [t.batchId, t.vinHmac, t.submissionId] })],
);
