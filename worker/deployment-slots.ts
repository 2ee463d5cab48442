import type { ReservedSql } from 'postgres';
import type { Sql } from '../db/client';
import { RegistryNetworkError } from './registry/client';

/** The advisory-lock space of registry slots: classid SLOT_SPACE + slot number, objid the account. */
const SLOT_SPACE = 727_100;
/** How often a send waiting for a slot another worker holds looks again. */
const POLL_MS = 20;

export interface DeploymentSlots {
  /** One of the account's `limit` registry slots of the whole deployment, and its release. */
  take(accountId: number, signal: AbortSignal): Promise<() => Promise<void>>;
  /** Gives the connection back (every slot it held is freed with it). */
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
 * advisory lock (SLOT_SPACE + n, account) held on one connection this worker keeps for it,
 * so however many workers run, at most `limit` calls of an account reach the registry at
 * once. A worker that dies frees its slots with its connection. Each registry call costs two
 * short statements on that connection (take, give back); a send that finds every slot taken
 * by other workers looks again every 20 ms. If the connection is lost, the slots it held are
 * gone with it: the next take opens another.
 */
export function createDeploymentSlots(sql: Sql, limit: number): DeploymentSlots {
  let connection: Promise<ReservedSql> | undefined;
  /**
   * The slots this process holds, per account. An advisory lock is re-entrant for the session
   * that holds it, so the query must skip them (in a CASE: the planner may reorder an AND, and
   * a lock taken again for a row then filtered out would never be given back), and takes run
   * one after another: two at once would both be granted the same free slot.
   */
  const mine = new Map<number, Set<number>>();
  let queue: Promise<unknown> = Promise.resolve();
  const open = () => {
    connection ??= sql.reserve().catch((error: unknown) => {
      connection = undefined;
      throw error;
    });
    return connection;
  };
  /** Back to the pool without a lock: a pooled connection that kept one would hold its slot for good. */
  const giveBack = async (was: Promise<ReservedSql> | undefined) => {
    const db = await was?.catch(() => undefined);
    if (!db) return;
    await db`SELECT pg_advisory_unlock_all()`.catch(() => {});
    db.release();
  };
  const lost = () => {
    const was = connection;
    connection = undefined;
    mine.clear();
    void giveBack(was);
  };

  async function tryTake(accountId: number): Promise<number | undefined> {
    const held = mine.get(accountId) ?? new Set<number>();
    const db = await open();
    try {
      const [row] = await db<{ slot: number }[]>`
        SELECT s AS slot FROM generate_series(0, ${limit - 1}::int) s
        WHERE CASE WHEN s = ANY(${[...held]}::int[]) THEN false ELSE pg_try_advisory_lock(${SLOT_SPACE}::int + s, ${accountId}::int) END
        LIMIT 1`;
      if (row) mine.set(accountId, held.add(row.slot));
      return row?.slot;
    } catch (error) {
      lost();
      throw error;
    }
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
        const slot = await nextTake(accountId);
        if (slot !== undefined) {
          const held = connection;
          return async () => {
            // A slot of a connection since lost was freed with it.
            if (held === connection) {
              const db = await held!;
              await db`SELECT pg_advisory_unlock(${SLOT_SPACE}::int + ${slot}::int, ${accountId}::int)`.catch(lost);
            }
            mine.get(accountId)?.delete(slot);
          };
        }
        await sleep(POLL_MS, signal);
      }
    },
    async close() {
      const was = connection;
      connection = undefined;
      mine.clear();
      await giveBack(was);
    },
  };
}
