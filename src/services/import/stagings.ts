import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';

/** The advisory-lock space of staging leases; the second key is the batch id. */
export const LEASE_SPACE = 727_012;

/**
 * Taken inside the transaction that commits a batch as `staging`, held until it is `staged` or
 * `failed`: a session advisory lock on the upload's own connection (db/client.ts
 * `reserveConnection`), which stages the rest on that same connection, so the lease costs no
 * connection of its own. A process that dies loses its connections, hence its locks, so a
 * batch still `staging` whose lock is free has nobody staging it (staging-failure.ts fails
 * it), whichever server process looks.
 */
export async function takeLease(exec: Executor, batchId: number): Promise<void> {
  await exec.execute(sql`SELECT pg_advisory_lock(${LEASE_SPACE}, ${batchId})`);
}

export async function releaseLease(exec: Executor, batchId: number): Promise<void> {
  await exec.execute(sql`SELECT pg_advisory_unlock(${LEASE_SPACE}, ${batchId})`);
}

/** An upload let in: it holds its place until `release`, and `signal` tells it the server is stopping. */
export interface UploadAdmission {
  signal: AbortSignal;
  /** One more holder of the place (the background staging that outlives the request). */
  retain(): void;
  /** Once per holder: the place is free when every holder released it. */
  release(): void;
}

/** Why an upload was not let in: the account has as many as it may, or the process has. */
export type UploadRefusal = { refused: 'account' | 'process'; limit: number };

interface StagingRun {
  /** Whether it runs after the upload answered; otherwise the upload waits for `done`. */
  background: boolean;
  /** Settles when the staging ended: rejected with its error when it failed. */
  done: Promise<void>;
}

interface ImportStagingsOptions {
  /** Uploads read or staged at once, foreground and background (GATEWAY_IMPORT_UPLOADS_MAX). */
  uploads: number;
  /** Of those, one account's (GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT). */
  perAccount: number;
  /** Stagings run in the background at once (GATEWAY_IMPORT_BACKGROUND_MAX). */
  background: number;
  /** How a background staging is started: at once; a test may hold it back. */
  schedule?: (start: () => void) => void;
}

/**
 * The uploads this process takes. Each is admitted before its body is read, against a limit
 * for the process and one per account, and keeps its place until its staging ended, in the
 * request or after it: so the files, readers and connections of uploads are bounded, and one
 * account cannot take every place. Past either limit the caller answers at once (429 / 503),
 * holding nothing. Of the admitted, at most `background` stage past their first rows after
 * the upload answered; past it the upload stages the rest itself before it answers. `stop`
 * (server shutdown) interrupts every upload between two rows and waits until each background
 * staging has failed its batch: none is left half-staged and shown as complete.
 */
export function createImportStagings(options: ImportStagingsOptions) {
  const schedule = options.schedule ?? ((start) => start());
  const running = new Set<Promise<void>>();
  const admitted = new Set<AbortController>();
  const perAccount = new Map<number, number>();
  let inBackground = 0;
  let stopping = false;
  return {
    admit(accountId: number): UploadAdmission | UploadRefusal {
      const mine = perAccount.get(accountId) ?? 0;
      if (mine >= options.perAccount) return { refused: 'account', limit: options.perAccount };
      if (admitted.size >= options.uploads) return { refused: 'process', limit: options.uploads };
      const controller = new AbortController();
      if (stopping) controller.abort();
      admitted.add(controller);
      perAccount.set(accountId, mine + 1);
      let holders = 1;
      const free = () => {
        admitted.delete(controller);
        const left = (perAccount.get(accountId) ?? 1) - 1;
        if (left > 0) perAccount.set(accountId, left);
        else perAccount.delete(accountId);
      };
      return {
        signal: controller.signal,
        retain: () => {
          holders += 1;
        },
        release: () => {
          holders -= 1;
          if (holders === 0) free();
        },
      };
    },
    /**
     * Runs the rest of an admitted upload's staging: in the background when a place is free
     * (the admission is retained until it ends), else for the upload to await.
     */
    run(admission: UploadAdmission, work: (signal: AbortSignal) => Promise<void>): StagingRun {
      const background = !admission.signal.aborted && inBackground < options.background;
      if (background) {
        inBackground += 1;
        admission.retain();
      }
      // Interrupted before it started: it starts at once, to fail its batch.
      const started = background
        ? new Promise<void>((resolve) => {
            schedule(resolve);
            admission.signal.addEventListener('abort', () => resolve());
          })
        : Promise.resolve();
      const done = started.then(() => work(admission.signal));
      // A failure is recorded on its batch and journalled by `work`; the upload awaits `done`
      // only when it stages the rest itself.
      const tracked = done
        .catch(() => undefined)
        .finally(() => {
          running.delete(tracked);
          if (!background) return;
          inBackground -= 1;
          admission.release();
        });
      running.add(tracked);
      return { background, done };
    },
    /** Interrupts every admitted upload and waits for the background stagings to end; later ones are interrupted at once. */
    async stop(): Promise<void> {
      stopping = true;
      for (const controller of admitted) controller.abort();
      await Promise.all(running);
    },
    /** Stagings running in the background now. */
    active: () => inBackground,
    /** Uploads admitted now (reading, staging, or staging in the background). */
    admitted: () => admitted.size,
  };
}
export type ImportStagings = ReturnType<typeof createImportStagings>;
