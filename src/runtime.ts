import { join } from 'node:path';
import { createDb } from '../db/client';
import type { Config } from './config';
import type { AppContext } from './context';
import { createKeyring } from './crypto/envelope';
import { createJournal } from './journal/journal';
import { createMetrics } from './metrics';
import { createOperationsLoader } from './services/operations/context';
import { createNomenclatorCache } from './services/operations/nomenclator-cache';
import { createInsertBatcher } from './services/submissions/insert-batcher';

/** Builds the context that the server (and the tests) hand to every service. */
export function createContext(options: {
  config: Config;
  databaseUrl: string;
  secretKey: string;
  processName: string;
  clock?: () => Date;
  poolSize?: number;
}): AppContext & { close: () => Promise<void> } {
  const { sql, db, close } = createDb(options.databaseUrl, { max: options.poolSize });
  const clock = options.clock ?? (() => new Date());
  const journal = createJournal({ sql, logDir: join(options.config.GATEWAY_DATA_DIR, 'logs'), processName: options.processName });
  return {
    db,
    sql,
    config: options.config,
    journal,
    keyring: createKeyring(options.secretKey, options.config.GATEWAY_OLD_SECRET_KEYS),
    clock,
    metrics: createMetrics(sql),
    nomenclator: createNomenclatorCache(clock),
    inserts: createInsertBatcher(db),
    lookups: createOperationsLoader(db),
    close: async () => {
      await journal.flush();
      await close();
    },
  };
}
