import { createApp } from '../../src/app';
import { apiClient, type TestApp } from './app';
import type { WorkerHarness } from './worker';

/**
 * The API over a worker harness's own database, shaped as a TestApp, so that the import's
 * helpers (upload, stage, preview) drive the same data a worker then sends to the simulated
 * registry. Its accounts carry registry credentials (the harness's `createAccount`).
 */
export async function apiOverHarness(h: WorkerHarness): Promise<TestApp> {
  const app = createApp(h.app);
  const { createKey, call } = apiClient(app, h.app);
  return {
    app,
    ctx: h.app,
    dataDir: h.dataDir,
    databaseUrl: h.database.url,
    createAccount: (name?: string) => h.createAccount(name, { username: 'demo', password: 'demo' }),
    createKey,
    call,
    // The harness runs the stager, and owns the context and the database.
    stager: null,
    close: async () => {},
  };
}
