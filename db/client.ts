import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Sql = postgres.Sql;

/**
 * Drizzle over a postgres.js client. Drizzle runs unnamed queries unprepared, which costs
 * postgres.js an extra round trip (Parse/Describe, then Bind/Execute) on every call. Preparing
 * them, as postgres.js does for its own tagged queries, halves that; statement shapes here are
 * few and fixed.
 */
function drizzleOver(sql: Sql) {
  const prepared = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (query: string, params?: unknown[], options?: { prepare?: boolean }) => target.unsafe(query, params as never, { ...options, prepare: true });
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
