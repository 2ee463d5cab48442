import type { WorkerContext } from '../context';

/**
 * The worker's liveness (worker_state, read by /healthz) and the heartbeat of every row it
 * is sending, which keeps other workers from recovering those rows as stale.
 */
export async function heartbeat(ctx: WorkerContext, sending?: number[]): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`INSERT INTO worker_state (worker_id, heartbeat_at) VALUES (${ctx.workerId}, now())
             ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = now()`;
    // Locked in id order, as every multi-row update of the worker does: no deadlocks between them.
    // `sending`: only the rows of deliveries still under way (send-loop.ts heartbeatIds); all of this worker's when not given.
    await tx`UPDATE submissions SET heartbeat_at = now() WHERE id IN (
               SELECT id FROM submissions WHERE status = 'sending' AND worker_id = ${ctx.workerId}
                 AND (${sending === undefined}::boolean OR id = ANY(${sending ?? []}::bigint[])) ORDER BY id FOR UPDATE)`;
  });
}
