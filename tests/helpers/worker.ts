import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config';
import { encryptJson } from '../../src/crypto/envelope';
import type { SubmissionInput } from '../../src/domain/submission-input';
import { createContext } from '../../src/runtime';
import { startStager } from '../../src/services/import';
import { startStagerProcess } from './stager-process';
import { createSubmission } from '../../src/services/submissions/create';
import { createWorkerContext, type WorkerContext } from '../../worker/context';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../../worker/registry/simulator';
import { startWorker, type RunningWorker } from '../../worker/runner';
import { TEST_SECRET, TEST_STAGER, UNTHROTTLED } from './app';
import { createTestDatabase } from './db';
import { makeSubmission } from './factories';

/** Fast settings for tests: sub-minute staleness, one-second backoff, short shutdown bound. */
export const FAST_WORKER_ENV: Record<string, string> = {
  GATEWAY_REQUIRE_API_KEY: 'false',
  GATEWAY_SENDING_STALE_S: '30',
  GATEWAY_WORKER_HEARTBEAT_S: '1',
  GATEWAY_WORKER_BACKOFF_S: '1',
  GATEWAY_WORKER_CREDS_RETRY_S: '1',
  GATEWAY_WORKER_SHUTDOWN_S: '2',
  GATEWAY_REGISTRY_TIMEOUT_MS: '1500',
  GATEWAY_LOG_LEVEL: 'error',
};

// DEBUG_WORKER=1 shows the worker's log while a test runs.
const show = (level: string) => (process.env.DEBUG_WORKER ? (m: string) => console.log(`[worker ${level}] ${m}`) : () => {});
export const quietLog = { info: show('info'), warn: show('warn'), error: show('error') };

export const SIM_USERS = 'demo:demo,alt:secret,third:pw3';

/**
 * A database of its own, the server-side context (for creating submissions through the real
 * service), the simulated registry and an in-process worker context over the same database.
 */
export async function startWorkerHarness(env: Record<string, string> = {}, options: { stagerProcess?: boolean } = {}) {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-worker-test-'));
  const baseEnv = { GATEWAY_DATA_DIR: dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, ...FAST_WORKER_ENV, ...UNTHROTTLED, ...env };
  const config = parseConfig(baseEnv);
  const sim: Simulator = await startSimulator({ users: parseSimUsers(SIM_USERS) });
  const app = createContext({ config, databaseUrl: database.url, secretKey: TEST_SECRET, processName: 'test' });
  // Uploads through the harness's API (or a browser over it) are staged as `npm start`'s stager
  // would: in this process, or (`stagerProcess`) in one of its own, off the server's event loop.
  const stager = options.stagerProcess
    ? await startStagerProcess({
        ...baseEnv,
        DATABASE_URL: database.url,
        GATEWAY_IMPORT_HEARTBEAT_S: String(TEST_STAGER.heartbeatS),
        GATEWAY_IMPORT_STALE_S: String(TEST_STAGER.staleS),
      })
    : await startStager(app, { id: 'harness-stager', ...TEST_STAGER });
  const workerCtxs: Array<WorkerContext & { close: () => Promise<void> }> = [];
  const running: RunningWorker[] = [];

  function workerContext(overrides: Record<string, string> = {}) {
    const ctx = createWorkerContext({ config: parseConfig({ ...baseEnv, ...overrides }), databaseUrl: database.url, secretKey: TEST_SECRET, registryUrl: sim.url, log: quietLog });
    workerCtxs.push(ctx);
    return ctx;
  }

  async function createAccount(name = 'Service test', creds?: { username: string; password: string }): Promise<number> {
    const enc = creds ? encryptJson(app.keyring, creds) : null;
    const [row] = await app.sql<{ id: number }[]>`INSERT INTO accounts (name, reg_creds_enc) VALUES (${name}, ${enc}) RETURNING id`;
    return row!.id;
  }

  /** A submission through the real create service, as POST /v1/prezentari stores it. */
  async function submit(accountId: number, overrides: Partial<SubmissionInput> = {}, requestId = `req-${Math.random().toString(36).slice(2)}`) {
    const input = makeSubmission({ reg_credentials: { username: 'demo', password: 'demo' }, ...overrides });
    const result = await createSubmission({ ctx: app, actor: { kind: 'dev', accountId }, input, requestId });
    if (result.id === null) throw new Error(`not stored: ${result.status}`);
    return { id: result.id, status: result.status, requestId, input };
  }

  async function row(id: number) {
    const [r] = await app.sql<
      Array<{
        status: string;
        reg_error: Record<string, unknown> | null;
        registry_id: string | null;
        reg_creds_enc: string | null;
        attempts: number;
        next_attempt_at: Date | null;
        purge_after: Date | null;
        worker_id: string | null;
        motiv: string | null;
      }>
    >`
      SELECT status, reg_error, registry_id, reg_creds_enc, attempts, next_attempt_at, purge_after, worker_id, motiv FROM submissions WHERE id = ${id}`;
    if (!r) throw new Error(`no submission ${id}`);
    // drizzle's driver makes this client return timestamps as text.
    const date = (v: Date | string | null) => (v === null ? null : new Date(v));
    return { ...r, next_attempt_at: date(r.next_attempt_at), purge_after: date(r.purge_after) };
  }

  async function attempts(id: number) {
    return app.sql<
      Array<{
        attempt_no: number;
        outcome: string | null;
        http_status: number | null;
        error_code: string | null;
        registry_id: string | null;
        ended_at: Date | null;
        worker_id: string | null;
      }>
    >`
      SELECT attempt_no, outcome, http_status, error_code, registry_id, ended_at, worker_id FROM submission_attempts WHERE submission_id = ${id} ORDER BY attempt_no`;
  }

  async function events(submissionId: number) {
    await app.journal.flush();
    for (const w of workerCtxs) await w.journal.flush();
    return app.sql<Array<{ event: string; request_id: string | null; data: Record<string, unknown> | null }>>`
      SELECT event, request_id, data FROM app_events WHERE submission_id = ${submissionId} ORDER BY id`;
  }

  async function start(ctx: WorkerContext = workerContext()) {
    const worker = await startWorker(ctx);
    running.push(worker);
    return worker;
  }

  return {
    config,
    database,
    dataDir,
    sim,
    app,
    workerContext,
    createAccount,
    submit,
    row,
    attempts,
    events,
    start,
    /** Waits until the submission reaches one of `statuses`. */
    async waitForStatus(id: number, statuses: string | string[], timeoutMs = 10_000) {
      const wanted = Array.isArray(statuses) ? statuses : [statuses];
      return waitFor(
        async () => {
          const r = await row(id);
          return wanted.includes(r.status) ? r : undefined;
        },
        timeoutMs,
        `submission ${id} to reach ${wanted.join('|')}`,
      );
    },
    async close() {
      for (const w of running) await w.stop();
      await stager.stop();
      await sim.close();
      for (const c of workerCtxs) await c.close();
      await app.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type WorkerHarness = Awaited<ReturnType<typeof startWorkerHarness>>;

/** Polls `probe` until it returns a value, or fails with what it waited for. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
