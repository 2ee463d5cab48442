import { setMaxListeners } from 'node:events';
import { claimBatch } from '../claim';
import type { WorkerContext } from '../context';
import type { OutageReporter } from '../outage';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { deliver } from '../deliver';
import { createOutcomeWriter } from '../outcome';

const CLAIM_COALESCE_MS = 15;
/** A delivery's bound, in registry timeouts: login, reconciliation, send, and two calls' wait for a slot. */
const DELIVERY_TIMEOUTS = 6;

export interface SendLoop {
  /** Claims now if there is room; calls made while a claim runs are folded into one more claim. */
  wake(): void;
  inflight(): number;
  /**
   * The submissions whose delivery is under way and younger than the bound a delivery can
   * take (its login, reconciliation and send, each within the registry timeout, and a wait
   * for a slot). One older than that is stuck (a query the driver never answered on a lost
   * connection): its row is no longer heartbeated, so it goes stale and is recovered and
   * reconciled like a dead worker's.
   */
  heartbeatIds(): number[];
  /** Stops claiming, waits up to `boundMs` for sends in flight, then aborts the rest (they are released, not lost). */
  stop(boundMs: number): Promise<void>;
}

/**
 * The send loop: woken by NOTIFY, by its cron tick and by every finished send, it claims as
 * many submissions as this process has room for and delivers them concurrently.
 */
export function createSendLoop(ctx: WorkerContext, outage: OutageReporter): SendLoop {
  const running = new Set<Promise<void>>();
  /** Each delivery under way: when it was claimed. */
  const startedAt = new Map<number, number>();
  const boundMs = DELIVERY_TIMEOUTS * ctx.config.GATEWAY_REGISTRY_TIMEOUT_MS;
  const abort = new AbortController();
  const writer = createOutcomeWriter(ctx, abort.signal);
  // Every send in flight, and every one waiting for a registry slot, listens to this one signal.
  setMaxListeners(0, abort.signal);
  // Aborted by stop(): no claim starts after it, nor sends one that was waiting for its connection.
  const stopped = new AbortController();
  let claiming: Promise<void> | undefined;
  let again = false;

  async function claimRound() {
    do {
      again = false;
      const room = ctx.settings.maxInflight - running.size;
      if (room <= 0 || stopped.signal.aborted) return;
      const jobs = await claimBatch(ctx, room, stopped.signal);
      outage.succeeded();
      for (const job of jobs) {
        ctx.journal.write({
          event: 'worker_claimed',
          requestId: job.requestId,
          accountId: job.accountId,
          submissionId: job.id,
          data: { from: 'queued', to: 'sending', attempt: job.attemptNo, worker_id: ctx.workerId, reconcile_first: job.inDoubt },
        });
        startedAt.set(job.id, Date.now());
        const task: Promise<void> = deliver(ctx, job, abort.signal, writer)
          .then(() => undefined)
          .catch((error: unknown) => {
            // Only a database failure gets here; the row stays `sending` and is recovered as stale.
            if (isDatabaseUnavailable(error)) outage.failed('delivery', error);
            else ctx.log.error(`delivery of submission ${job.id} failed to record: ${String(error)}`);
          })
          .finally(() => {
            startedAt.delete(job.id);
            running.delete(task);
            wakeSoon();
          });
        running.add(task);
      }
      // A full batch suggests more is due; a partial one means we wait for a wake.
      if (jobs.length === room) again = true;
    } while (again && !stopped.signal.aborted);
  }

  /**
   * Finished sends ask for a claim a few milliseconds later: the rows prefetched per account
   * keep the registry slots busy meanwhile, and one claim then serves many freed places.
   */
  let soon: NodeJS.Timeout | undefined;
  function wakeSoon() {
    soon ??= setTimeout(() => {
      soon = undefined;
      wake();
    }, CLAIM_COALESCE_MS);
  }

  function wake() {
    if (stopped.signal.aborted) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimRound()
      .catch((error: unknown) => outage.failed('claim', error))
      .finally(() => {
        claiming = undefined;
      });
  }

  return {
    wake,
    inflight: () => running.size,
    heartbeatIds: () => {
      const since = Date.now() - boundMs;
      return [...startedAt].filter(([, at]) => at >= since).map(([id]) => id);
    },
    async stop(boundMs) {
      stopped.abort();
      clearTimeout(soon);
      await claiming;
      const all = Promise.allSettled([...running]);
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([all.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), boundMs)))]);
      clearTimeout(timer);
      if (!finished) {
        ctx.log.warn(`stopping: ${running.size} send(s) still in flight after ${boundMs} ms; releasing them`);
        abort.abort();
        await Promise.allSettled([...running]);
      }
    },
  };
}
