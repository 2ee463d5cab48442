import { join } from 'node:path';
import { createDb } from '../db/client';
import type { Config } from './config';
import { createKeyring } from './crypto/envelope';
import { databaseConnection } from './database-connection';
import { createJournal } from './journal/journal';

export interface ContextOptions {
  config: Config;
  databaseUrl: string;
  secretKey: string;
  processName: string;
  clock?: () => Date;
  poolSize?: number;
}

/**
 * What every process of the product shares: its database pool, its journal (the table and
 * `<data dir>/logs/<process>.log`), the keyring and the clock. `close` flushes the journal
 * before it ends the pool.
 */
export function createBaseContext(options: ContextOptions) {
  const { sql, db, close } = createDb(options.databaseUrl, { max: options.poolSize, connection: databaseConnection(options.config, options.databaseUrl) });
  const journal = createJournal({ sql, logDir: join(options.config.GATEWAY_DATA_DIR, 'logs'), processName: options.processName });
  return {
    db,
    sql,
    config: options.config,
    journal,
    keyring: createKeyring(options.secretKey, options.config.GATEWAY_OLD_SECRET_KEYS),
    clock: options.clock ?? (() => new Date()),
    close: async () => {
      await journal.flush();
      await close();
    },
  };
}
