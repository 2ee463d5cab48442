import { sql } from 'drizzle-orm';
import { reserveConnection, type Executor, type OwnConnection, type Sql } from '../../../db/client';
import { takeUploadPlaces } from './upload-places';

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
  /** Once per holder: the place is free when every holder released it (settled once it is). */
  release(): Promise<void>;
}

/**
 * An upload let in for the whole deployment: its place in this process, and its own connection
 * (db/client.ts `reserveConnection`), which holds its places in the deployment
 * (upload-places.ts). The file is staged on that connection, which never asks the pool for a
 * second.
 */
export interface AdmittedUpload extends UploadAdmission {
  connection: OwnConnection;
  /** Frees the deployment's places and gives the connection back to the pool: once, by whoever used it last (the last release does it too). */
  giveBack(): Promise<void>;
}

/** Why an upload was not let in: the account has as many as it may, or this process has, or the deployment has. */
export type UploadRefusal = { refused: 'account' | 'process' | 'deployment'; limit: number };

/** Back to the pool without a lock: a pooled connection that kept one would hold its place (or lease) for good. */
async function giveBackConnection(own: OwnConnection): Promise<void> {
  await own.db.execute(sql`SELECT pg_advisory_unlock_all()`).catch(() => undefined);
  own.release();
}

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
 * for the process and one per account, then against the same limits for the whole deployment
 * (`enter`, upload-places.ts), and keeps its place until its staging ended, in the request or
 * after it: so the files, readers and connections of uploads are bounded, and one account
 * cannot take every place. Past either limit the caller answers at once (429 / 503),
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
  /** A place in this process; `freeFirst` runs when the last holder released it, before the place is free. */
  function admitHere(accountId: number, freeFirst: () => Promise<void>): UploadAdmission | UploadRefusal {
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
      release: async () => {
        holders -= 1;
        if (holders !== 0) return;
        await freeFirst();
        free();
      },
    };
  }
  return {
    /** A place in this process alone (what `enter` checks first, without a round trip). */
    admit: (accountId: number) => admitHere(accountId, async () => {}),
    /**
     * Lets an upload in, or answers why not, holding nothing then: a place in this process,
     * then a connection of `sql` and the account's and the deployment's places on it (two
     * short statements; every server of the deployment counts the same places).
     */
    async enter(sql: Sql, accountId: number): Promise<AdmittedUpload | UploadRefusal> {
      let connection: OwnConnection | undefined;
      let given: Promise<void> | undefined;
      const giveBack = () => (given ??= connection ? giveBackConnection(connection) : Promise.resolve());
      const here = admitHere(accountId, giveBack);
      if ('refused' in here) return here;
      try {
        connection = await reserveConnection(sql);
        const refusal = await takeUploadPlaces(connection.db, accountId, options);
        if (refusal) {
          await here.release();
          return refusal;
        }
      } catch (error) {
        await here.release();
        throw error;
      }
      return { ...here, connection, giveBack };
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
          return admission.release();
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
