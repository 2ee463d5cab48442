import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db, Sql } from '../db/client';
import type { Config } from '../src/config';
import type { Keyring } from '../src/crypto/envelope';
import type { Journal } from '../src/journal/journal';
import { createBaseContext } from '../src/base-context';
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
  /** Registry calls in flight per account, at most GATEWAY_WORKER_CONCURRENCY (one worker sends an account at a time). */
  limiter: AccountLimiter;
  /** The nomenclator refresh of first logins: the accounts whose first login in this process asked for one, and the one under way (awaited at stop). */
  loginRefresh: { accounts: Set<number>; running?: Promise<void> };
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
  const base = createBaseContext({
    config,
    databaseUrl: options.databaseUrl,
    secretKey: options.secretKey,
    processName: 'worker',
    clock: options.clock,
    // Sends in flight each hold a connection only briefly; a few beyond that serve the tasks.
    poolSize: config.GATEWAY_WORKER_DB_POOL ?? Math.min(20, settings.maxInflight + 4),
  });
  const protocol = protocolFrom(config.GATEWAY_REGISTRY_PROTOCOL);
  const { clock } = base;
  return {
    ...base,
    workerId: config.GATEWAY_WORKER_ID ?? newWorkerId(),
    settings,
    protocol,
    registry:
      options.registry ??
      createRegistryClient({ baseUrl: options.registryUrl, userAgent: config.GATEWAY_REGISTRY_USER_AGENT, timeoutMs: config.GATEWAY_REGISTRY_TIMEOUT_MS, protocol }),
    sessions: createSessionCache(() => clock().getTime()),
    limiter: createAccountLimiter(settings.concurrencyPerAccount),
    loginRefresh: { accounts: new Set() },
    log: options.log,
  };
}
