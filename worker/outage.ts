import { isDatabaseUnavailable } from '../db/unavailable';
import type { Journal } from '../src/journal/journal';
import type { WorkerLog } from './context';

/**
 * What the worker says of its tasks' failures. A database that cannot be reached (a restart, a
 * failover) fails every task at every tick: that is one warning when it starts and one line
 * when it ends, with how long it lasted and how many attempts failed meanwhile, where each
 * failed tick used to be an error line and a journal row (two a second, for as long as it
 * lasted). Any other failure is an error, each time, as before.
 */
export function createOutageReporter(log: WorkerLog, journal: Pick<Journal, 'write'>, now: () => number = Date.now) {
  let since: number | null = null;
  let failures = 0;
  return {
    /** A task failed with `error`. */
    failed(task: string, error: unknown): void {
      if (!isDatabaseUnavailable(error)) {
        log.error(`${task} failed: ${String(error)}`);
        journal.write({ event: 'worker_task_failed', level: 'error', data: { task, error: String(error) } });
        return;
      }
      failures += 1;
      if (since !== null) return;
      since = now();
      log.warn(`The database cannot be reached (${task}: ${String(error)}); every task retries on its schedule`);
      journal.write({ event: 'worker_database_unavailable', level: 'warn', data: { task, error: String(error) } });
    },
    /** A task that needs the database succeeded: an outage, if one was under way, is over. */
    succeeded(): void {
      if (since === null) return;
      const seconds = Math.round((now() - since) / 1000);
      log.info(`The database is reachable again, after ${seconds} s (${failures} failed attempts meanwhile)`);
      journal.write({ event: 'worker_database_back', data: { seconds, failed_attempts: failures } });
      since = null;
      failures = 0;
    },
  };
}
export type OutageReporter = ReturnType<typeof createOutageReporter>;
