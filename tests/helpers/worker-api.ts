import { createApp } from '../../src/app';
import { startStager } from '../../src/services/import';
import { apiClient, TEST_STAGER, type TestApp } from './app';
import type { WorkerHarness } from './worker';

/**
 * The API over a worker harness's own database, shaped as a TestApp, so that the import's
 * helpers (upload, stage, preview) drive the same data a worker then sends to the simulated
 * registry. Its accounts carry registry credentials (the harness's `createAccount`). Close it
 * before the harness.
 */
export async function apiOverHarness(h: WorkerHarness): Promise<TestApp> {
  const app = createApp(h.app);
  const { createKey, call } = apiClient(app, h.app);
  // Its uploads staged as `npm start`'s stager would, on the harness's context.
  const stager = await startStager(h.app, { id: 'harness-stager', ...TEST_STAGER });
  return {
    app,
    ctx: h.app,
    dataDir: h.dataDir,
    databaseUrl: h.database.url,
    createAccount: (name?: string) => h.createAccount(name, { username: 'demo', password: 'demo' }),
    createKey,
    call,
    stager,
    // The harness owns the context and the database.
    close: () => stager.stop(),
  };
}
