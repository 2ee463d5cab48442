import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createDb, type Db, type Sql } from '../db/client';
import type { Config } from '../src/config';
import { createKeyring, type Keyring } from '../src/crypto/envelope';
import { createJournal, type Journal } from '../src/journal/journal';
import { createRegistryClient, type RegistryClient } from './registry/client';
import { protocolFrom, type RegistryProtocol } from './registry/protocol';
import { createAccountLimiter, type AccountLimiter } from './limiter';
import { createSessionCache, type SessionCache } from './sessions';
import { workerSettings, type WorkerSettings } from './settings';

export interface WorkerLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Everything the worker's tasks need, handed in so a test can run a worker in-process. */
export interface WorkerContext {
  workerId: string;
  db: Db;
  sql: Sql;
  config: Config;
  settings: WorkerSettings;
  journal: Journal;
  keyring: Keyring;
  clock: () => Date;
  protocol: RegistryProtocol;
  registry: RegistryClient;
  sessions: SessionCache;
  /** Registry calls in flight per account, at most GATEWAY_WORKER_CONCURRENCY. */
  limiter: AccountLimiter;
  /** Accounts whose first successful login in this process already refreshed the nomenclator. */
  nomenclatorRefreshed: Set<number>;
  log: WorkerLog;
}

export function newWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function createWorkerContext(options: {
  config: Config;
  databaseUrl: string;
  secretKey: string;
  registryUrl: string;
  log: WorkerLog;
  clock?: () => Date;
  registry?: RegistryClient;
}): WorkerContext & { close: () => Promise<void> } {
  const { config } = options;
  const settings = workerSettings(config);
  // Sends in flight each hold a connection only briefly; a few beyond that serve the tasks.
  const { sql, db, close } = createDb(options.databaseUrl, { max: Math.min(20, settings.maxInflight + 4) });
  const journal = createJournal({ sql, logDir: join(config.GATEWAY_DATA_DIR, 'logs'), processName: 'worker' });
  const protocol = protocolFrom(config.GATEWAY_REGISTRY_PROTOCOL);
  const clock = options.clock ?? (() => new Date());
  return {
    workerId: config.GATEWAY_WORKER_ID ?? newWorkerId(),
    db,
    sql,
    config,
    settings,
    journal,
    keyring: createKeyring(options.secretKey, config.GATEWAY_OLD_SECRET_KEYS),
    clock,
    protocol,
    registry:
      options.registry ??
      createRegistryClient({ baseUrl: options.registryUrl, userAgent: config.GATEWAY_REGISTRY_USER_AGENT, timeoutMs: config.GATEWAY_REGISTRY_TIMEOUT_MS, protocol }),
    sessions: createSessionCache(() => clock().getTime()),
    limiter: createAccountLimiter(settings.concurrencyPerAccount),
    nomenclatorRefreshed: new Set(),
    log: options.log,
    close: async () => {
      await journal.flush();
      await close();
    },
  };
}
