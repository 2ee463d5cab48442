import { createDb } from '../db/client';
import { createBaseContext, type ContextOptions } from './base-context';
import { databaseConnection } from './database-connection';
import type { AppContext } from './context';
import { createWindowSync } from './http/window-sync';
import { createMetrics } from './metrics';
import { createAccountActivity, createImportStagings } from './services/import';
import { createOperationsLoader } from './services/operations/context';
import { createNomenclatorCache } from './services/operations/nomenclator-cache';
import { createInsertBatcher } from './services/submissions/insert-batcher';

/** Builds the context that the server (and the tests) hand to every service. */
export function createContext(options: ContextOptions): AppContext & { close: () => Promise<void> } {
  const base = createBaseContext(options);
  // Uploads stage on connections of their own, one per upload at most, closed when idle.
  const uploads = createDb(options.databaseUrl, {
    max: options.config.GATEWAY_IMPORT_UPLOADS_MAX,
    idleTimeoutS: 30,
    connection: databaseConnection(options.config, options.databaseUrl),
  });
  const ctx: AppContext & { close: () => Promise<void> } = {
    ...base,
    uploadSql: uploads.sql,
    metrics: createMetrics(base.sql),
    nomenclator: createNomenclatorCache(base.clock),
    inserts: createInsertBatcher(base.db),
    lookups: createOperationsLoader(base.db),
    windows: createWindowSync(base.sql),
    importStagings: createImportStagings({
      uploads: options.config.GATEWAY_IMPORT_UPLOADS_MAX,
      perAccount: options.config.GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT,
      background: options.config.GATEWAY_IMPORT_BACKGROUND_MAX,
    }),
    activity: createAccountActivity(),
    // Background stagings end (their batches failed) before the pool they write with.
    close: async () => {
      await ctx.importStagings.stop();
      await uploads.close();
      await ctx.windows.stop();
      await base.close();
    },
  };
  return ctx;
}
