import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';
import { isConnectionLost } from './unavailable';

export type Sql = postgres.Sql;

/**
 * Drizzle over a postgres.js client. Drizzle runs unnamed queries unprepared, which costs
 * postgres.js an extra round trip (Parse/Describe, then Bind/Execute) on every call. Preparing
 * them, as postgres.js does for its own tagged queries, halves that; statement shapes here are
 * few and fixed.
 */
function drizzleOver<S extends Sql>(sql: S, options: Sql['options'] = sql.options, lost: () => boolean = () => false) {
  const prepared = new Proxy(sql, {
    get(target, prop, receiver) {
      // A reserved connection has no options of its own: drizzle reads (and sets) its pool's.
      if (prop === 'options') return options;
      if (prop === 'unsafe') {
        return (query: string, params?: unknown[], options?: { prepare?: boolean }) => {
          if (lost()) throw Object.assign(new Error('the reserved connection was lost'), { code: 'CONNECTION_CLOSED' });
          return target.unsafe(query, params as never, { ...options, prepare: true });
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return drizzle(prepared, { schema });
}

/**
 * While the database cannot be reached (a restart, a failover), a query fails within these
 * bounds instead of waiting: a connection attempt gives up after CONNECT_TIMEOUT_S, and a
 * connection that failed tries again after at most RECONNECT_MAX_S (postgres.js would wait up
 * to 20 s, and hold every query queued meanwhile); so requests answer 503 at once and work
 * resumes within half a second of the database's return.
 */
const CONNECT_TIMEOUT_S = 5;
const RECONNECT_MAX_S = 0.5;

/**
 * What a process asks of its connections beyond the URL (src/database-connection.ts builds it
 * from the settings): TLS, and session parameters sent as each connection opens.
 */
export interface DbConnection {
  /** postgres.js `ssl`; unset, postgres.js reads the URL's `sslmode` itself. */
  ssl?: postgres.Options<Record<string, never>>['ssl'];
  /** statement_timeout, idle_in_transaction_session_timeout: in the start-up packet, so every connection has them before its first query. */
  parameters?: Partial<postgres.ConnectionParameters>;
}

/** A postgres.js pool with the bounds above, and drizzle over it. */
export function createDb(url: string, options: { max?: number; idleTimeoutS?: number; connection?: DbConnection } = {}) {
  const { ssl, parameters } = options.connection ?? {};
  const sql = postgres(url, {
    max: options.max ?? 10,
    ...(options.idleTimeoutS ? { idle_timeout: options.idleTimeoutS } : {}),
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: (retries) => Math.min(0.05 * 2 ** retries, RECONNECT_MAX_S),
    // Only when given: a key present, even undefined, would override the URL's sslmode.
    ...(ssl === undefined ? {} : { ssl }),
    ...(parameters ? { connection: parameters } : {}),
    onnotice: () => {},
    transform: { undefined: null },
  });
  const db = drizzleOver(sql);
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

export type DbHandle = ReturnType<typeof createDb>;
export type Db = DbHandle['db'];
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that runs drizzle queries: the pool or an open transaction. */
export type Executor = Db | Tx;

/**
 * One connection of the pool, kept by one caller until `release`: for work that must not ask
 * the pool for a second connection while it holds one (a wait that, with every connection so
 * held, never ends). `transaction` runs on this very connection; drizzle's `db.transaction`
 * would take another from the pool, so code handed `db` must not call it.
 */
export interface OwnConnection {
  db: Db;
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  release(): void;
}

export async function reserveConnection(sql: Sql): Promise<OwnConnection> {
  const reserved = await sql.reserve();
  let released = false;
  let lost = false;
  // Once lost, every query on it fails at once instead of waiting on a dead connection.
  const db: Db = drizzleOver(reserved, sql.options, () => lost);
  return {
    db,
    async transaction(fn) {
      if (lost) throw Object.assign(new Error('the reserved connection was lost'), { code: 'CONNECTION_CLOSED' });
      await reserved.unsafe('BEGIN');
      try {
        const result = await fn(db);
        await reserved.unsafe('COMMIT');
        return result;
      } catch (error) {
        // A connection that broke rolled back by itself, and must be neither used nor released
        // again (db/unavailable.ts): the pool takes it back once closed.
        lost ||= isConnectionLost(error);
        if (!lost) await reserved.unsafe('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
    release() {
      if (released) return;
      released = true;
      if (!lost) reserved.release();
    },
  };
}
