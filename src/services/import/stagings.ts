import type { Sql } from '../../../db/client';

/** The advisory-lock space of staging leases; the second key is the batch id. */
export const LEASE_SPACE = 727_012;

export interface StagingLease {
  release(): Promise<void>;
}

/**
 * Taken before a batch is committed as `staging`, held until it is `staged` or `failed`: a
 * session advisory lock on a connection of its own. A process that dies loses its
 * connections, hence its locks, so a batch still `staging` whose lock is free has nobody
 * staging it (staging-failure.ts fails it), whichever server process looks.
 */
export async function acquireLease(sql: Sql, batchId: number): Promise<StagingLease> {
  const connection = await sql.reserve();
  try {
    await connection`SELECT pg_advisory_lock(${LEASE_SPACE}, ${batchId})`;
  } catch (error) {
    connection.release();
    throw error;
  }
  return {
    async release() {
      try {
        await connection`SELECT pg_advisory_unlock(${LEASE_SPACE}, ${batchId})`;
      } finally {
        connection.release();
      }
    },
  };
}

interface StagingRun {
  /** Whether it runs after the upload answered; otherwise the upload waits for `done`. */
  background: boolean;
  /** Settles when the staging ended: rejected with its error when it failed. */
  done: Promise<void>;
}

interface ImportStagingsOptions {
  /** Stagings run in the background at once (GATEWAY_IMPORT_BACKGROUND_MAX). */
  max: number;
  /** How a background staging is started: at once; a test may hold it back. */
  schedule?: (start: () => void) => void;
}

/**
 * The stagings this process runs past an upload's first rows. At most `max` in the background
 * (each holds its file and reader in memory); past it the upload itself stages the rest before
 * it answers. `stop` (server shutdown) interrupts every one between two rows and waits until
 * each has failed its batch: none is left half-staged and shown as complete.
 */
export function createImportStagings(options: ImportStagingsOptions) {
  const schedule = options.schedule ?? ((start) => start());
  const running = new Map<Promise<void>, AbortController>();
  let inBackground = 0;
  let stopping = false;
  return {
    run(work: (signal: AbortSignal) => Promise<void>): StagingRun {
      const controller = new AbortController();
      if (stopping) controller.abort();
      const background = !stopping && inBackground < options.max;
      if (background) inBackground += 1;
      // Interrupted before it started: it starts at once, to fail its batch.
      const started = background
        ? new Promise<void>((resolve) => {
            schedule(resolve);
            controller.signal.addEventListener('abort', () => resolve());
          })
        : Promise.resolve();
      const done = started.then(() => work(controller.signal));
      // A failure is recorded on its batch and journalled by `work`; the upload awaits `done`
      // only when it stages the rest itself.
      const tracked = done
        .catch(() => undefined)
        .finally(() => {
          running.delete(tracked);
          if (background) inBackground -= 1;
        });
      running.set(tracked, controller);
      return { background, done };
    },
    /** Interrupts the running stagings and waits for them to end; later ones are interrupted at once. */
    async stop(): Promise<void> {
      stopping = true;
      for (const controller of running.values()) controller.abort();
      await Promise.all(running.keys());
    },
    /** Stagings running in the background now. */
    active: () => inBackground,
  };
}
export type ImportStagings = ReturnType<typeof createImportStagings>;
