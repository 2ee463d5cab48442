import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Sql = postgres.Sql;

export function createDb(url: string, options: { max?: number } = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    transform: { undefined: null },
  });
  // Drizzle runs unnamed queries unprepared, which costs postgres.js an extra round trip
  // (Parse/Describe, then Bind/Execute) on every call. Preparing them, as postgres.js does
  // for its own tagged queries, halves that; statement shapes here are few and fixed.
  const prepared = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (query: string, params?: unknown[], options?: { prepare?: boolean }) => target.unsafe(query, params as never, { ...options, prepare: true });
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const db = drizzle(prepared, { schema });
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

export type DbHandle = ReturnType<typeof createDb>;
export type Db = DbHandle['db'];
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that runs drizzle queries: the pool or an open transaction. */
export type Executor = Db | Tx;
