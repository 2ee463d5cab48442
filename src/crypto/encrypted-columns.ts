/**
 * Every column that holds envelope ciphertext (crypto/envelope.ts), with the key that finds
 * its row: what `npm run rotate-key` re-encrypts and what it counts per key id. Migration
 * 0019_master_keys reads the same columns once, to record the keys of an earlier build's data.
 */
export interface EncryptedColumn {
  table: string;
  key: readonly string[];
  column: string;
  /** Rows re-encrypted per transaction, when fewer than the rotation's batch: a value is large. */
  maxBatch?: number;
}

export const ENCRYPTED_COLUMNS: readonly EncryptedColumn[] = [
  { table: 'accounts', key: ['id'], column: 'reg_creds_enc' },
  { table: 'submissions', key: ['id'], column: 'reg_creds_enc' },
  { table: 'import_batches', key: ['id'], column: 'vin_key_enc' },
  { table: 'import_rows', key: ['batch_id', 'row_index'], column: 'raw_enc' },
  { table: 'import_row_blocks', key: ['batch_id', 'block_no'], column: 'raw_enc' },
  { table: 'registry_sessions', key: ['account_id'], column: 'token_enc' },
  // An uploaded file's pieces of 1 MiB each, kept with its batch's staged rows.
  { table: 'import_upload_pieces', key: ['batch_id', 'piece'], column: 'piece_enc', maxBatch: 32 },
];
