import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { createContext } from '../../src/runtime';
import { generateApiKey } from '../../src/crypto/hash';
import { startStager, type Stager } from '../../src/services/import';
import { createTestDatabase } from './db';

export const TEST_SECRET = randomBytes(32).toString('base64');

/**
 * No budget of costly work (src/http/cost-budget.ts) and no per-second limit of a key: an app of
 * startTestApp, secondServer or the worker harness (apiOverHarness), and the processes of a test
 * deployment (deploymentEnv, backup-embedded), have neither unless their test sets its own
 * GATEWAY_COSTLY_* (cost-budget.test.ts, import-answer-bounds.test.ts) or
 * GATEWAY_KEY_REQUESTS_PER_S (abuse-limits.test.ts). The budget charges the time work takes, so
 * on a loaded machine a test of something else that uploads and reads a dozen files in one
 * account met its refusals (real-exports in CI); and tests of other things send one key's
 * requests back to back, past 100 a second (backup-embedded). The storm's processes
 * (import-storm-process) and bench:abuse run with the defaults.
 */
export const UNTHROTTLED = { GATEWAY_COSTLY_PER_ACCOUNT: '1000', GATEWAY_COSTLY_MAX: '1000', GATEWAY_COSTLY_SHARE_PCT: '100', GATEWAY_KEY_REQUESTS_PER_S: '0' } as const;

/** Keys and JSON requests to `app` over `ctx`'s database, for startTestApp and the worker harness's API. */
export function apiClient(app: ReturnType<typeof createApp>, ctx: { sql: ReturnType<typeof createContext>['sql'] }) {
  async function createKey(accountId: number): Promise<string> {
    const key = generateApiKey();
    await ctx.sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${accountId}, ${key.hash}, ${key.prefix})`;
    return key.plain;
  }
  /** A JSON request with the key; `body` objects are serialised, strings sent as they are. */
  async function call(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(options.key ? { 'X-API-Key': options.key } : {}), ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    return app.request(path, { method, headers, body });
  }
  return { createKey, call };
}

/** Stagers in tests: renewing their claims often, so that a dead one's file is taken up again within seconds. */
export const TEST_STAGER = { heartbeatS: 1, staleS: 3 } as const;

/**
 * A real app over a fresh database of its own; `env` overrides settings. A stager runs in the
 * same process, on the app's context (as `npm start` runs one beside the server, in a process
 * of its own), so an upload is staged as in production; `stager: false` leaves the queue to
 * the test.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { clock?: () => Date; poolSize?: number; stager?: boolean } = {}) {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const config = parseConfig({ GATEWAY_DATA_DIR: dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, ...UNTHROTTLED, ...env });
  const ctx = createContext({ config, databaseUrl: database.url, secretKey: TEST_SECRET, processName: 'test', clock: options.clock, poolSize: options.poolSize });
  const app = createApp(ctx);
  const stager: Stager | null = options.stager === false ? null : await startStager(ctx, { id: 'test-stager', ...TEST_STAGER });

  async function createAccount(name = 'Service test'): Promise<number> {
    const [row] = await ctx.sql<{ id: number }[]>`INSERT INTO accounts (name) VALUES (${name}) RETURNING id`;
    return row!.id;
  }
  const { createKey, call } = apiClient(app, ctx);

  return {
    app,
    ctx,
    dataDir,
    databaseUrl: database.url,
    createAccount,
    createKey,
    call,
    stager,
    close: async () => {
      await stager?.stop();
      await ctx.close();
      await database.drop();
    },
  };
}
export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** A response body as a plain object, for assertions. */
export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/**
 * A second server on `first`'s database, as a second process would be: its own context and app
 * (pools, windows, stagings), the same settings and master key. `close` ends its context only.
 */
export function secondServer(first: TestApp, env: Record<string, string> = {}) {
  const config = parseConfig({ GATEWAY_DATA_DIR: first.dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, ...UNTHROTTLED, ...env });
  const ctx = createContext({ config, databaseUrl: first.databaseUrl, secretKey: TEST_SECRET, processName: 'test-b' });
  return { ...first, app: createApp(ctx), ctx, close: () => ctx.close() };
}

/** One more stager on `first`'s database, with a context of its own, as another stager process would be. */
export async function extraStager(first: TestApp, id: string, env: Record<string, string> = {}) {
  const config = parseConfig({ GATEWAY_DATA_DIR: first.dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, ...env });
  const ctx = createContext({ config, databaseUrl: first.databaseUrl, secretKey: TEST_SECRET, processName: id, poolSize: 4 });
  const stager = await startStager(ctx, { id, ...TEST_STAGER });
  return {
    ctx,
    stager,
    close: async () => {
      await stager.stop();
      await ctx.close();
    },
  };
}
