import { Cron } from 'croner';
import type { WorkerContext } from './context';
import { createOutageReporter } from './outage';
import { heartbeat } from './tasks/heartbeat';
import { pruneJournal } from './tasks/journal-retention';
import { nomenclatorRefresh } from './tasks/nomenclator-refresh';
import { purge } from './tasks/purge';
import { recoverStaleSends } from './tasks/recover-stale';
import { createSendLoop, type SendLoop } from './tasks/send-loop';

export const QUEUE_CHANNEL = 'gateway_queue';
/** Database connections opened before the first claim, so the first deliveries do not each wait for one. */
const WARM_CONNECTIONS = 8;
/** The start-up purge and journal pruning wait this long, so they do not compete with the first deliveries. */
const STARTUP_MAINTENANCE_DELAY_MS = 5_000;

export interface RunningWorker {
  loop: SendLoop;
  /** Stop claiming, finish or release the sends in flight within the shutdown bound, wait for every task. */
  stop(): Promise<void>;
}

/**
 * Starts the worker's schedule in this process: the send loop (woken at once by NOTIFY on
 * gateway_queue, else every second), heartbeat and stale recovery, and the daily purge,
 * journal retention and nomenclator refresh.
 */
export async function startWorker(ctx: WorkerContext): Promise<RunningWorker> {
  const outage = createOutageReporter(ctx.log, ctx.journal);
  const loop = createSendLoop(ctx, outage);
  const tasks = new Set<Promise<unknown>>();
  let stopping = false;

  /** Runs a task and keeps its promise, so stop() can await everything that was started. */
  const track = (name: string, fn: () => Promise<unknown>) => async () => {
    if (stopping) return;
    const task = fn().then(
      () => outage.succeeded(),
      (error: unknown) => outage.failed(name, error),
    );
    tasks.add(task);
    try {
      await task;
    } finally {
      tasks.delete(task);
    }
  };

  const beat = track('heartbeat', async () => {
    await heartbeat(ctx, loop.heartbeatIds());
    if ((await recoverStaleSends(ctx)) > 0) loop.wake();
  });
  await heartbeat(ctx);
  await Promise.all(Array.from({ length: WARM_CONNECTIONS }, () => ctx.sql`SELECT 1`));

  // The listen callback also fires on every (re)connection: a wake then catches anything
  // queued while the notification connection was down.
  const listener = await ctx.sql.listen(
    QUEUE_CHANNEL,
    () => loop.wake(),
    () => loop.wake(),
  );
  const jobs = [
    new Cron('* * * * * *', { protect: true }, () => loop.wake()),
    new Cron('* * * * * *', { protect: true, interval: ctx.settings.heartbeatS }, beat),
    new Cron(
      '0 17 3 * * *',
      { protect: true },
      track('purge', () => purge(ctx)),
    ),
    new Cron(
      '0 47 3 * * *',
      { protect: true },
      track('journal_retention', () => pruneJournal(ctx)),
    ),
    new Cron(
      '0 7 4 * * *',
      { protect: true },
      track('nomenclator_refresh', () => nomenclatorRefresh(ctx)),
    ),
  ];
  // A worker that is never up at 03:17 still purges: once shortly after start-up as well.
  const startupMaintenance = setTimeout(() => {
    void track('purge', () => purge(ctx))();
    void track('journal_retention', () => pruneJournal(ctx))();
  }, STARTUP_MAINTENANCE_DELAY_MS);
  void beat();
  ctx.journal.write({ event: 'worker_started', data: { worker_id: ctx.workerId, settings: { ...ctx.settings } } });

  return {
    loop,
    async stop() {
      stopping = true;
      // First, synchronously: no claim may start after this line, whatever wakes the loop.
      const sendsDone = loop.stop(ctx.settings.shutdownS * 1000);
      for (const job of jobs) job.stop();
      clearTimeout(startupMaintenance);
      await listener.unlisten().catch(() => {});
      await sendsDone;
      await Promise.allSettled([...tasks, ctx.loginRefresh.running]);
      ctx.journal.write({ event: 'worker_stopped', data: { worker_id: ctx.workerId } });
    },
  };
}
