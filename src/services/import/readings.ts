import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Keyring } from '../../crypto/envelope';

/**
 * The VIN as `import_rows` keeps it in plain: an HMAC under a random key of the batch, stored
 * encrypted with the service key (`import_batches.vin_key_enc`). It lets a reading stored
 * after the upload find the rows of its VIN, reveals no VIN to whoever reads the table, and
 * cannot link the rows of two batches.
 */
export type VinHasher = (vin: string) => string;

export function newVinKey(keyring: Keyring): { key: Buffer; stored: string } {
  const key = randomBytes(32);
  return { key, stored: keyring.encrypt(key.toString('base64')) };
}

/** The batch's key, or null when there is none or it no longer decrypts (the rows are then hashed again). */
export function openVinKey(keyring: Keyring, stored: string | null): Buffer | null {
  if (!stored) return null;
  try {
    const key = Buffer.from(keyring.decrypt(stored), 'base64');
    return key.length === 32 ? key : null;
  } catch {
    return null;
  }
}

export function vinHasher(key: Uint8Array): VinHasher {
  // A key object made once: given the raw key, createHmac prepares it again for every VIN.
  const secret = createSecretKey(key);
  return (vin) => createHmac('sha256', secret).update(vin).digest('base64url');
}

/** A recorded odometer: the highest of the account's submissions for a VIN on one date. */
export interface Reading {
  vin: string;
  data: string;
  odometru: number;
}

/**
 * A staging that ends with at least this many rows analyses import_rows before its rows are
 * joined (readings, links, then every preview), and submissions when as many of them changed
 * since their last analysis (a commit): in between autovacuum's rounds, the statistics put a
 * new batch at one row, and a plan cached on a connection (postgres.js prepares its
 * statements) could date from when the account had no submissions. Planned so, the joins of a
 * batch looped over it against subqueries of the whole batch, or over the VINs against every
 * submission: quadratic, minutes for 20,000 rows. Below it, such a loop costs less than this.
 */
const ANALYZE_FROM_ROWS = 1000;

/**
 * In the staging's transaction, whose own rows the analysis counts; an analysis also makes every
 * connection plan its statements on these tables again. Only the columns these joins are chosen
 * on (and the tables' sizes): all of them cost about three times as much, most of it in the
 * text and JSON columns. A role that does not own a table gets a warning, and the plans of before.
 */
export async function analyzeStaged(exec: Executor, rows: number): Promise<void> {
  if (rows < ANALYZE_FROM_ROWS) return;
  const [changed] = await exec.execute<{ n: string | null }>(sql`SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relid = 'submissions'::regclass`);
  const submissions = Number(changed?.n ?? 0) >= ANALYZE_FROM_ROWS ? sql`, ${SUBMISSION_COLUMNS}` : sql``;
  await exec.execute(sql`ANALYZE import_rows (batch_id)${submissions}`);
}
const SUBMISSION_COLUMNS = sql`submissions (scope_account_id, status, vin)`;

/**
 * A commit that stored at least ANALYZE_FROM_ROWS submissions analyses them in its transaction:
 * the count analyzeStaged reads is flushed by the committing backend only a second or more
 * later, so the same export uploaded right after its commit could still be planned without them.
 */
export async function analyzeCommitted(exec: Executor, inserted: number): Promise<void> {
  if (inserted >= ANALYZE_FROM_ROWS) await exec.execute(sql`ANALYZE ${SUBMISSION_COLUMNS}`);
}

/** The id below which every submission of the account has been looked at for readings. */
export async function readingsWatermark(exec: Executor, accountId: number): Promise<number> {
  const [row] = await exec.execute<{ id: string | null }>(sql`SELECT max(id) AS id FROM submissions WHERE scope_account_id = ${accountId}`);
  return Number(row?.id ?? 0);
}

const READING = sql`data_prestatie AS data, max((payload_json->>'odometruFinal')::numeric)::float8 AS odometru`;
const HAS_READING = sql`jsonb_typeof(payload_json->'odometruFinal') = 'number'`;

/**
 * The account's submissions of these VINs, for a query over them: one lookup of the VIN index
 * per VIN (OFFSET 0 keeps the account's condition out of that scan: on statistics from before a
 * commit, the planner read the account's index instead, for each VIN), with no join to choose
 * on an estimate of the list. Statistics or a cached plan from when the account had few
 * submissions still make any shape loop over the table: analyzeStaged sees to those.
 */
export function submissionsOfVins(accountId: number, vins: readonly string[]): SQL {
  return sql`jsonb_array_elements_text(${JSON.stringify(vins)}::jsonb) AS v(vin)
    CROSS JOIN LATERAL (SELECT * FROM submissions WHERE vin = v.vin OFFSET 0) s
    WHERE s.scope_account_id = ${accountId}`;
}

/** The readings already recorded for these VINs (one query for a whole batch). */
export async function readingsForVins(exec: Executor, accountId: number, vins: readonly string[]): Promise<Array<Reading & Record<string, unknown>>> {
  if (vins.length === 0) return [];
  return exec.execute<Reading & Record<string, unknown>>(sql`
    SELECT s.vin, ${READING} FROM ${submissionsOfVins(accountId, vins)} AND ${HAS_READING}
    GROUP BY s.vin, s.data_prestatie`);
}

/** The readings of submissions stored after the watermark (usually none, or a few). */
export async function readingsSince(exec: Executor, accountId: number, afterId: number): Promise<{ readings: Reading[]; watermark: number }> {
  const rows = await exec.execute<Reading & { last: string } & Record<string, unknown>>(sql`
    SELECT vin, ${READING}, max(id) AS last FROM submissions
    WHERE scope_account_id = ${accountId} AND id > ${afterId} AND ${HAS_READING}
    GROUP BY vin, data_prestatie`);
  return { readings: rows, watermark: rows.reduce((max, r) => Math.max(max, Number(r.last)), afterId) };
}

/**
 * Raises each row's recorded reading to the highest one of its VIN on or before its date.
 * Readings only grow, so applying new ones over old ones is the same as looking all up again.
 */
export async function applyReadings(exec: Executor, hasher: VinHasher, batchId: number, readings: readonly Reading[], onlyRow: number | null = null): Promise<void> {
  if (readings.length === 0) return;
  const hashed = readings.map((r) => ({ h: hasher(r.vin), data: r.data, odometru: r.odometru }));
  await exec.execute(sql`
    UPDATE import_rows r SET recorded_odometru = best.odometru, recorded_data = best.data
    FROM (
      SELECT DISTINCT ON (x.row_index) x.row_index, v.odometru, v.data
      FROM import_rows x
      JOIN jsonb_to_recordset(${JSON.stringify(hashed)}::jsonb) AS v(h text, data text, odometru float8) ON v.h = x.vin_hmac AND v.data <= x.data_prestatie
      WHERE x.batch_id = ${batchId} AND (${onlyRow}::int IS NULL OR x.row_index = ${onlyRow}::int)
      ORDER BY x.row_index, v.odometru DESC
    ) best
    WHERE r.batch_id = ${batchId} AND r.row_index = best.row_index AND (r.recorded_odometru IS NULL OR best.odometru > r.recorded_odometru)`);
}
