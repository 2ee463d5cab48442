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
  const db = drizzle(sql, { schema });
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

export type DbHandle = ReturnType<typeof createDb>;
export type Db = DbHandle['db'];
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that runs drizzle queries: the pool or an open transaction. */
export type Executor = Db | Tx;
