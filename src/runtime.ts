import { createBaseContext, type ContextOptions } from './base-context';
import type { AppContext } from './context';
import { createMetrics } from './metrics';
import { createOperationsLoader } from './services/operations/context';
import { createNomenclatorCache } from './services/operations/nomenclator-cache';
import { createInsertBatcher } from './services/submissions/insert-batcher';

/** Builds the context that the server (and the tests) hand to every service. */
export function createContext(options: ContextOptions): AppContext & { close: () => Promise<void> } {
  const base = createBaseContext(options);
  return {
    ...base,
    metrics: createMetrics(base.sql),
    nomenclator: createNomenclatorCache(base.clock),
    inserts: createInsertBatcher(base.db),
    lookups: createOperationsLoader(base.db),
  };
}
