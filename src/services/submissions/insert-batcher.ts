import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { ContentError } from '../../errors';
import { createBatcher } from '../batcher';
import { postedRows, type PostedSubmission } from './store';

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
    async (rows: PostedSubmission[]) => {
      const stored = await insertRows(db, [...new Map(rows.map((r) => [r.idempotencyKey, r])).values()]);
      const seen = new Set<string>();
      return rows.map((r) => {
        const row = stored.get(r.idempotencyKey);
        if (!row) throw new Error('idempotency conflict without a stored row');
        const first = !seen.has(r.idempotencyKey);
        seen.add(r.idempotencyKey);
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

// The input's fields the statement names (store.ts's posted row), built once.
const key = postedRows.field('i', 'idempotencyKey');
const legacyKey = postedRows.field('i', 'legacyKey');
const accountId = postedRows.field('i', 'accountId');

/**
 * One statement: rows whose content is already stored (current key, or the older key form of
 * rows from before account scoping, in the same account) are reported, the rest inserted with
 * conflict-ignore. Rows that lost a race to a concurrent statement are read back afterwards.
 */
async function insertRows(db: Db, rows: PostedSubmission[]): Promise<Map<string, StoredRow>> {
  const found = await db.execute<StoredRow & { key: string }>(sql`
    WITH input AS (
      SELECT * FROM ${postedRows.from(rows)}
    ), existing AS (
      -- LATERAL keeps this an index lookup per input row; a plain join lets the planner
      -- choose a scan of the whole table once the batch has more than a few rows.
      SELECT ${key} AS key, s.id, s.status, s.erori, s.nemapate, s.motiv, s.reg_error
      FROM input i CROSS JOIN LATERAL (
        SELECT id, status, erori, nemapate, motiv, reg_error FROM submissions s
        WHERE s.idempotency_key IN (${key}, ${legacyKey}) AND s.scope_account_id = ${accountId}
        ORDER BY s.id LIMIT 1
      ) s
    ), ins AS (
      ${postedRows.insertFromI}
      FROM input i WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.key = ${key})
      ON CONFLICT (idempotency_key) DO NOTHING
      RETURNING idempotency_key AS key, id, status, erori, nemapate, motiv, reg_error
    )
    SELECT *, true AS inserted FROM ins
    UNION ALL
    SELECT *, false AS inserted FROM existing`);
  const results = new Map(found.map((r) => [r.key, { ...r, id: Number(r.id) }]));
  const missing = rows.map((r) => r.idempotencyKey).filter((k) => !results.has(k));
  if (missing.length > 0) {
    const winners = await db.execute<StoredRow & { key: string }>(sql`
      SELECT idempotency_key AS key, id, status, erori, nemapate, motiv, reg_error, false AS inserted
      FROM submissions WHERE idempotency_key IN ${missing}`);
    for (const w of winners) results.set(w.key, { ...w, id: Number(w.id) });
  }
  return results;
}
