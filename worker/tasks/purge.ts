import type { WorkerContext } from '../context';

const CHUNK = 5_000;

/** Deletes in chunks, so a first purge of a large table does not hold one long lock. */
async function deleteInChunks(run: (limit: number) => Promise<{ count: number }>): Promise<number> {
  let total = 0;
  for (;;) {
    const { count } = await run(CHUNK);
    total += count;
    if (count < CHUNK) return total;
  }
}

export interface PurgeResult {
  submissions: number;
  credentials: number;
  importBatches: number;
  importRows: number;
  importBlocks: number;
  sessions: number;
}

/**
 * The daily purge. Submissions past purge_after go (never `queued` or `sending`: those are
 * still owed to the registry), their attempts with them. Ephemeral credentials left on
 * submissions that no longer need them (`sent`, `error`) are erased; the account's durable
 * credentials are never touched. Staged import data past purge_after goes too (rows cascade),
 * and dashboard sessions idle past GATEWAY_SESSION_IDLE_MIN (already refused when used).
 */
export async function purge(ctx: WorkerContext): Promise<PurgeResult> {
  const { sql } = ctx;
  const submissions = await deleteInChunks(
    (limit) => sql`
    DELETE FROM submissions WHERE id IN (
      SELECT id FROM submissions WHERE purge_after < now() AND status NOT IN ('queued', 'sending') LIMIT ${limit})`,
  );
  const credentials = (
    await sql`
    UPDATE submissions SET reg_creds_enc = NULL WHERE reg_creds_enc IS NOT NULL AND status IN ('sent', 'error')`
  ).count;
  const importRows = await deleteInChunks(
    (limit) => sql`
    DELETE FROM import_rows WHERE (batch_id, row_index) IN (SELECT batch_id, row_index FROM import_rows WHERE purge_after < now() LIMIT ${limit})`,
  );
  const importBlocks = await deleteInChunks(
    (limit) => sql`
    DELETE FROM import_row_blocks WHERE (batch_id, block_no) IN (SELECT batch_id, block_no FROM import_row_blocks WHERE purge_after < now() LIMIT ${limit})`,
  );
  const importBatches = await deleteInChunks(
    (limit) => sql`
    DELETE FROM import_batches WHERE id IN (SELECT id FROM import_batches WHERE purge_after < now() LIMIT ${limit})`,
  );
  const sessions = (
    await sql`
    DELETE FROM web_sessions WHERE last_seen_at < now() - ${ctx.config.GATEWAY_SESSION_IDLE_MIN} * interval '1 minute'`
  ).count;
  const result = { submissions, credentials, importBatches, importRows, importBlocks, sessions };
  ctx.journal.write({ event: 'worker_purge', data: { ...result } });
  return result;
}
