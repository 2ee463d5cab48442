import type { Db, Executor, Sql } from '../db/client';
import type { Config } from './config';
import type { Keyring } from './crypto/envelope';
import type { Journal } from './journal/journal';
import type { Metrics } from './metrics';
import type { NomenclatorCache } from './services/operations/nomenclator-cache';
import type { OperationsLoader } from './services/operations/context';
import type { InsertBatcher } from './services/submissions/insert-batcher';

/** Everything a service needs, handed in (never imported as a singleton) so tests can swap parts. */
export interface AppContext {
  db: Db;
  sql: Sql;
  config: Config;
  journal: Journal;
  keyring: Keyring;
  clock: () => Date;
  metrics: Metrics;
  nomenclator: NomenclatorCache;
  /** Stores new submissions, sharing one statement among concurrent requests. */
  inserts: InsertBatcher;
  /** Loads mappings and text rules, sharing one query among concurrent requests. */
  lookups: OperationsLoader;
}

/** The account a request acts for, from its API key (or account 1 in development mode). */
export interface Principal {
  accountId: number;
  viaKey: boolean;
  keyId: number | null;
}

/** Runs `fn` in a transaction, or inside the caller's when one is passed. */
export async function withTransaction<T>(ctx: AppContext, tx: Executor | undefined, fn: (tx: Executor) => Promise<T>): Promise<T> {
  if (tx && tx !== ctx.db) return fn(tx);
  return ctx.db.transaction((inner) => fn(inner));
}
