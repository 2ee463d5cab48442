import type { WorkerContext } from '../context';

export const JOURNAL_RETENTION_DAYS = 90;
const CHUNK = 10_000;

/** Journal rows older than 90 days go, in chunks; so do worker_state rows of long-gone workers. */
export async function pruneJournal(ctx: WorkerContext): Promise<number> {
  const { sql } = ctx;
  let total = 0;
  for (;;) {
    const { count } = await sql`
      DELETE FROM app_events WHERE id IN (
        SELECT id FROM app_events WHERE ts < now() - make_interval(days => ${JOURNAL_RETENTION_DAYS}) LIMIT ${CHUNK})`;
    total += count;
    if (count < CHUNK) break;
  }
  await sql`DELETE FROM worker_state WHERE heartbeat_at < now() - make_interval(days => ${JOURNAL_RETENTION_DAYS})`;
  ctx.journal.write({ event: 'worker_journal_pruned', data: { deleted: total, retention_days: JOURNAL_RETENTION_DAYS } });
  return total;
}
