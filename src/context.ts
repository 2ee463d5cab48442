import type { Db, Executor, Sql } from '../db/client';
import type { Config } from './config';
import type { Keyring } from './crypto/envelope';
import { sqlState } from './journal/describe-error';
import type { Journal } from './journal/journal';
import type { WindowSync } from './http/window-sync';
import type { Metrics } from './metrics';
import type { UploadGate } from './services/import';
import type { Role } from './services/roles';
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
  /** The upload bodies this server is reading, bounded (services/import/queue.ts). */
  uploads: UploadGate;
  /** The rate-limit windows every server of the deployment shares (http/window-sync.ts). */
  windows: WindowSync;
}

/**
 * Who acts, built once per request by the transport's middleware and handed to services:
 * an API key, a signed-in web user (an operator's `admin` also sees every account's journal;
 * `role` is theirs within the account, services/roles.ts), or development mode (no key
 * required: account 1).
 */
export type Actor =
  | { kind: 'key'; accountId: number; keyId: number }
  | { kind: 'user'; accountId: number; userId: number; admin: boolean; role?: Role }
  | { kind: 'dev'; accountId: number };

/** How an attestation or the journal names the actor. */
export function actorLabel(actor: Actor): string {
  if (actor.kind === 'key') return `cheie_api:${actor.keyId}`;
  if (actor.kind === 'user') return `utilizator:${actor.userId}`;
  return `cont:${actor.accountId}`;
}

/** Runs `fn` in a transaction, or inside the caller's when one is passed. */
export async function withTransaction<T>(ctx: AppContext, tx: Executor | undefined, fn: (tx: Executor) => Promise<T>): Promise<T> {
  if (tx && tx !== ctx.db) return fn(tx);
  return ctx.db.transaction((inner) => fn(inner));
}

const RETRIED_SQLSTATES = new Set(['40001', '40P01']); // serialization failure, deadlock detected
const MAX_TRIES = 5;

/**
 * A transaction of its own, run again (at most five times, after a short random pause) when
 * PostgreSQL ends it as a deadlock or a serialization failure: both roll everything back, so
 * `fn` starts over. Journal what the caller decides after it returns (telemetry written inside,
 * such as text_rule_hit, may repeat for a retried attempt).
 */
export async function withRetriedTransaction<T>(ctx: AppContext, fn: (tx: Executor) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction((inner) => fn(inner));
    } catch (error) {
      const state = sqlState(error);
      if (attempt >= MAX_TRIES || state === undefined || !RETRIED_SQLSTATES.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
