import { createBaseContext, type ContextOptions } from './base-context';
import type { AppContext } from './context';
import { createWindowSync } from './http/window-sync';
import { createMetrics } from './metrics';
import { createUploadGate } from './services/import';
import { createOperationsLoader } from './services/operations/context';
import { createNomenclatorCache } from './services/operations/nomenclator-cache';
import { createInsertBatcher } from './services/submissions/insert-batcher';

/** Builds the context that the server (and the tests) hand to every service. */
export function createContext(options: ContextOptions): AppContext & { close: () => Promise<void> } {
  const base = createBaseContext(options);
  const ctx: AppContext & { close: () => Promise<void> } = {
    ...base,
    metrics: createMetrics(base.sql),
    nomenclator: createNomenclatorCache(base.clock),
    inserts: createInsertBatcher(base.db),
    lookups: createOperationsLoader(base.db),
    windows: createWindowSync(base.sql),
    uploads: createUploadGate({
      uploads: options.config.GATEWAY_IMPORT_UPLOADS_MAX,
      perAccount: options.config.GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT,
      writes: Math.max(1, Math.floor((options.poolSize ?? options.config.GATEWAY_DB_POOL) / 4)),
    }),
    close: async () => {
      await ctx.windows.stop();
      await base.close();
    },
  };
  return ctx;
}
