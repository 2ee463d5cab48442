import { createDb, type DbConnection } from '../db/client';
import { RegistryNetworkError } from './registry/client';

/** The advisory-lock space of registry slots: classid SLOT_SPACE + slot number, objid the account. */
const SLOT_SPACE = 727_100;
/** How often a send waiting for a slot another worker holds looks again. */
const POLL_MS = 20;

export interface DeploymentSlots {
  /** One of the account's `limit` registry slots of the whole deployment, and its release. */
  take(accountId: number, signal: AbortSignal): Promise<() => Promise<void>>;
  /** Closes the connection (every slot it held is freed with it). */
  close(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(new RegistryNetworkError('shutting down', 0, true));
    }
    signal.addEventListener('abort', aborted, { once: true });
  });

/**
 * GATEWAY_WORKER_CONCURRENCY for the whole deployment, not per worker: a slot is a session
 * advisory lock (SLOT_SPACE + n, account) held on a connection of this worker's own (a pool of
 * one, outside the worker's pool), so however many workers run, at most `limit` calls of an
 * account reach the registry at once. A worker that dies frees its slots with its connection.
 * Each registry call costs two short statements on that connection (take, give back); a send
 * that finds every slot taken by other workers looks again every 20 ms.
 *
 * If the connection is lost (a database restart or failover), the slots it held are gone with
 * it: postgres.js tells (onclose), this process forgets them, and the next take opens the
 * connection again. A connection handed out by the pool's `reserve()` could not be used so: one
 * that closed while reserved is never told, and postgres.js fails on the next use.
 */
export function createDeploymentSlots(databaseUrl: string, limit: number, connection?: DbConnection): DeploymentSlots {
  /** Which life of the connection: a slot taken in an earlier one was freed when it ended. */
  let life = 0;
  /**
   * The slots this process holds, per account. An advisory lock is re-entrant for the session
   * that holds it, so the query must skip them (in a CASE: the planner may reorder an AND, and
   * a lock taken again for a row then filtered out would never be given back), and takes run
   * one after another: two at once would both be granted the same free slot.
   */
  const mine = new Map<number, Set<number>>();
  const { sql: db, close } = createDb(databaseUrl, {
    max: 1,
    connection,
    session: {
      onclose: () => {
        life += 1;
        mine.clear();
      },
    },
  });
  let queue: Promise<unknown> = Promise.resolve();

  async function tryTake(accountId: number): Promise<{ slot: number; life: number } | undefined> {
    const held = mine.get(accountId) ?? new Set<number>();
    const [row] = await db<{ slot: number }[]>`
      SELECT s AS slot FROM generate_series(0, ${limit - 1}::int) s
      WHERE CASE WHEN s = ANY(${[...held]}::int[]) THEN false ELSE pg_try_advisory_lock(${SLOT_SPACE}::int + s, ${accountId}::int) END
      LIMIT 1`;
    if (!row) return undefined;
    mine.set(accountId, held.add(row.slot));
    return { slot: row.slot, life };
  }
  const nextTake = (accountId: number) => {
    const result = queue.then(() => tryTake(accountId));
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    async take(accountId, signal) {
      for (;;) {
        if (signal.aborted) throw new RegistryNetworkError('shutting down', 0, true);
        const taken = await nextTake(accountId);
        if (taken) {
          return async () => {
            // A slot of a connection since lost was freed with it.
            if (taken.life !== life) return;
            await db`SELECT pg_advisory_unlock(${SLOT_SPACE}::int + ${taken.slot}::int, ${accountId}::int)`.catch(() => {});
            if (taken.life === life) mine.get(accountId)?.delete(taken.slot);
          };
        }
        await sleep(POLL_MS, signal);
      }
    },
    close,
  };
}
