import { recoverStale } from '../claim';
import type { WorkerContext } from '../context';

/**
 * Puts back in the queue the `sending` rows of a worker that stopped heartbeating. Their
 * next claim reconciles with the registry first, so a record that did arrive is not sent twice.
 * Returns how many were recovered, so the caller can wake the send loop.
 */
export async function recoverStaleSends(ctx: WorkerContext): Promise<number> {
  const recovered = await recoverStale(ctx);
  for (const row of recovered) {
    ctx.journal.write({
      event: 'worker_recovered',
      level: 'warn',
      requestId: row.requestId,
      accountId: row.accountId,
      submissionId: row.id,
      data: { from: 'sending', to: 'queued', stale_worker_id: row.workerId, stale_after_s: ctx.settings.staleS, reconcile_first: true },
    });
  }
  return recovered.length;
}
