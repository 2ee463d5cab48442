import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { ContentError } from '../../errors';
import { createBatcher } from '../batcher';

/** A submission row ready to store, with both forms of its idempotency key. */
export interface NewSubmissionRow {
  account_id: number;
  status: string;
  payload_json: unknown;
  idempotency_key: string;
  legacy_key: string;
  vin: string;
  nr_inm: string;
  data_prestatie: string;
  prestatii: unknown;
  erori: unknown;
  nemapate: unknown;
  motiv: string | null;
  reg_creds_enc: string | null;
  purge_after: string | null;
  request_id: string;
}

export type StoredRow = {
  id: number;
  status: string;
  erori: ContentError[] | null;
  nemapate: string[] | null;
  motiv: string | null;
  reg_error: unknown;
  inserted: boolean;
};

/**
 * Inserts submissions once per content, sharing one statement (one commit) among
 * concurrent requests (see batcher.ts). Each caller is answered only after its row, or the
 * row that already held its content, is committed; of several callers with the same
 * content in one batch, only the first is told it created the row.
 */
export function createInsertBatcher(db: Db) {
  const insert = createBatcher(
    async (rows: NewSubmissionRow[]) => {
      const stored = await insertRows(db, [...new Map(rows.map((r) => [r.idempotency_key, r])).values()]);
      const seen = new Set<string>();
      return rows.map((r) => {
        const row = stored.get(r.idempotency_key);
        if (!row) throw new Error('idempotency conflict without a stored row');
        const first = !seen.has(r.idempotency_key);
        seen.add(r.idempotency_key);
        return first ? row : { ...row, inserted: false };
      });
      // One statement at a time: the commit's WAL flush dominates, and while it runs the next
      // batch fills up, so commits stay few and large (measured: more in flight is slower).
    },
    { maxInFlight: 1 },
  );
  return { insert };
}
export type InsertBatcher = ReturnType<typeof createInsertBatcher>;

/**
 * One statement: rows whose content is already stored (current key, or the older key form of
 * rows from before account scoping, in the same account) are reported, the rest inserted with
 * conflict-ignore. Rows that lost a race to a concurrent statement are read back afterwards.
 */
async function insertRows(db: Db, rows: NewSubmissionRow[]): Promise<Map<string, StoredRow>> {
  const found = await db.execute<StoredRow & { key: string }>(sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        account_id integer, status text, payload_json jsonb, idempotency_key text, legacy_key text, vin text, nr_inm text,
        data_prestatie text, prestatii jsonb, erori jsonb, nemapate jsonb, motiv text, reg_creds_enc text,
        purge_after timestamptz, request_id text)
    ), existing AS (
      -- LATERAL keeps this an index lookup per input row; a plain join lets the planner
      -- choose a scan of the whole table once the batch has more than a few rows.
      SELECT i.idempotency_key AS key, s.id, s.status, s.erori, s.nemapate, s.motiv, s.reg_error
      FROM input i CROSS JOIN LATERAL (
        SELECT id, status, erori, nemapate, motiv, reg_error FROM submissions s
        WHERE s.idempotency_key IN (i.idempotency_key, i.legacy_key) AND s.scope_account_id = i.account_id
        ORDER BY s.id LIMIT 1
      ) s
    ), ins AS (
      INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie,
                               prestatii, erori, nemapate, motiv, reg_creds_enc, purge_after, request_id)
      SELECT account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie,
             prestatii, erori, nemapate, motiv, reg_creds_enc, purge_after, request_id
      FROM input i WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.key = i.idempotency_key)
      ON CONFLICT (idempotency_key) DO NOTHING
      RETURNING idempotency_key AS key, id, status, erori, nemapate, motiv, reg_error
    )
    SELECT *, true AS inserted FROM ins
    UNION ALL
    SELECT *, false AS inserted FROM existing`);
  const results = new Map(found.map((r) => [r.key, { ...r, id: Number(r.id) }]));
  const missing = rows.map((r) => r.idempotency_key).filter((k) => !results.has(k));
  if (missing.length > 0) {
    const winners = await db.execute<StoredRow & { key: string }>(sql`
      SELECT idempotency_key AS key, id, status, erori, nemapate, motiv, reg_error, false AS inserted
      FROM submissions WHERE idempotency_key IN ${missing}`);
    for (const w of winners) results.set(w.key, { ...w, id: Number(w.id) });
  }
  return results;
}
