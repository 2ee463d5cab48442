import type { Sql } from '../../db/client';
import { quoteIdent } from '../backup/tables';
import { DecryptError, envelopeKeyId, type Keyring } from './envelope';
import { ENCRYPTED_COLUMNS, type EncryptedColumn } from './encrypted-columns';
import { recordedKeyIds } from './master-keys';

export interface RotationProgress {
  column: EncryptedColumn;
  rotated: number;
}

export interface RotationResult {
  rotated: number;
  /** Values that would not decrypt (damaged), by where they are: left as they were. */
  unreadable: string[];
  /** Values still under another key than the current one, by key id, after the pass. */
  remaining: Map<string, number>;
  /** Keys no value is under any more, removed from the database's record. */
  retired: string[];
}

/**
 * Re-encrypts one column's values that are not under the current key, `batch` rows per
 * committed transaction, walking the column's key in order: interrupted, it starts again where
 * the values still under an old key are. Each value is replaced only if it is still the one read
 * (a compare-and-set), so a write by the running service in between is never undone.
 */
async function rotateColumn(sql: Sql, keyring: Keyring, column: EncryptedColumn, batch: number, unreadable: string[], progress: (p: RotationProgress) => void) {
  const table = quoteIdent(column.table);
  const col = quoteIdent(column.column);
  const keys = column.key.map(quoteIdent).join(', ');
  const current = `v1.${keyring.currentKeyId}.%`;
  let after: string[] | undefined;
  let rotated = 0;
  for (;;) {
    const from = after ? `AND (${keys}) > (${after.map((_, i) => `$${i + 2}`).join(', ')})` : '';
    const rows = await sql.unsafe<Array<Record<string, string>>>(
      `SELECT ${column.key.map((k) => `${quoteIdent(k)}::text AS ${quoteIdent(k)}`).join(', ')}, ${col} AS enc
       FROM ${table} WHERE ${col} IS NOT NULL AND ${col} NOT LIKE $1 ${from} ORDER BY ${keys} LIMIT ${Math.min(batch, column.maxBatch ?? batch)}`,
      [current, ...(after ?? [])],
    );
    if (rows.length === 0) break;
    const done = await sql.begin(async (tx) => {
      let changed = 0;
      for (const row of rows) {
        const where = column.key.map((k, i) => `${quoteIdent(k)} = $${i + 3}`).join(' AND ');
        let fresh: string;
        try {
          fresh = keyring.encryptBytes(keyring.decryptBytes(row.enc!));
        } catch (error) {
          if (!(error instanceof DecryptError)) throw error;
          unreadable.push(`${column.table}.${column.column} (${column.key.map((k) => `${k}=${row[k]}`).join(', ')}): ${error.message}`);
          continue;
        }
        const updated = await tx.unsafe(`UPDATE ${table} SET ${col} = $1 WHERE ${col} = $2 AND ${where}`, [fresh, row.enc!, ...column.key.map((k) => row[k]!)]);
        changed += updated.count;
      }
      return changed;
    });
    rotated += done;
    progress({ column, rotated });
    const last = rows.at(-1)!;
    after = column.key.map((k) => last[k]!);
  }
  return rotated;
}

/** How many values of every encrypted column are under each key. */
export async function valuesByKey(sql: Sql): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const column of ENCRYPTED_COLUMNS) {
    const col = quoteIdent(column.column);
    const rows = await sql.unsafe<Array<{ head: string; n: string }>>(
      `SELECT left(${col}, 12) AS head, count(*)::text AS n FROM ${quoteIdent(column.table)} WHERE ${col} IS NOT NULL GROUP BY 1`,
    );
    for (const { head, n } of rows) {
      const id = envelopeKeyId(head) ?? '(necunoscut)';
      counts.set(id, (counts.get(id) ?? 0) + Number(n));
    }
  }
  return counts;
}

/**
 * `npm run rotate-key`: every encrypted value not under the keyring's current key is
 * re-encrypted under it, online; then the keys nothing is under any more are removed from the
 * database's record, so processes may start without them.
 */
export async function rotateMasterKey(sql: Sql, keyring: Keyring, options: { batch: number; progress: (p: RotationProgress) => void }): Promise<RotationResult> {
  const unreadable: string[] = [];
  let rotated = 0;
  for (const column of ENCRYPTED_COLUMNS) rotated += await rotateColumn(sql, keyring, column, options.batch, unreadable, options.progress);
  const remaining = await valuesByKey(sql);
  remaining.delete(keyring.currentKeyId);
  const retired = (await recordedKeyIds(sql)).filter((id) => id !== keyring.currentKeyId && !remaining.has(id));
  if (retired.length > 0) await sql`DELETE FROM master_keys WHERE key_id IN ${sql(retired)}`;
  return { rotated, unreadable, remaining, retired };
}
