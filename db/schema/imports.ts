import { bigint, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

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
    status: text('status').notNull().default('staged'),
    rowCount: integer('row_count').notNull().default(0),
    committedAt: timestamp('committed_at', { withTimezone: true }),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('import_batches_account_idx').on(t.accountId), index('import_batches_purge_idx').on(t.purgeAfter)],
);

export const importRows = pgTable(
  'import_rows',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    batchId: integer('batch_id')
      .notNull()
      .references(() => importBatches.id, { onDelete: 'cascade' }),
    rowIndex: integer('row_index').notNull(),
    sheet: text('sheet'),
    // Raw cells, envelope-encrypted (personal data at rest).
    rawEnc: text('raw_enc').notNull(),
    overrideJson: text('override_json'),
    includeReview: integer('include_review').notNull().default(0),
    submissionId: bigint('submission_id', { mode: 'number' }),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
  },
  (t) => [unique('import_rows_batch_row_uq').on(t.batchId, t.rowIndex)],
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
  (t) => [
    unique('column_mappings_account_sig_uq').on(t.accountId, t.signature),
    index('column_mappings_account_updated_idx').on(t.accountId, t.updatedAt),
  ],
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
