import { createApp } from '../../src/app';
import { generateApiKey } from '../../src/crypto/hash';
import type { TestApp } from './app';
import type { WorkerHarness } from './worker';

/**
 * The API over a worker harness's own database, shaped as a TestApp, so that the import's
 * helpers (upload, stage, preview) drive the same data a worker then sends to the simulated
 * registry. Its accounts carry registry credentials (the harness's `createAccount`).
 */
export function apiOverHarness(h: WorkerHarness): TestApp {
  const app = createApp(h.app);
  async function createKey(accountId: number): Promise<string> {
    const key = generateApiKey();
    await h.app.sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${accountId}, ${key.hash}, ${key.prefix})`;
    return key.plain;
  }
  async function call(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(options.key ? { 'X-API-Key': options.key } : {}), ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    return app.request(path, { method, headers, body });
  }
  return {
    app,
    ctx: h.app,
    dataDir: h.dataDir,
    databaseUrl: h.database.url,
    createAccount: (name?: string) => h.createAccount(name, { username: 'demo', password: 'demo' }),
    createKey,
    call,
    // The harness owns the context and the database.
    close: async () => {},
  };
}
