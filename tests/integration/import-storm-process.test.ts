import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmbedded } from '../../db/embedded';
import { reservePort } from '../helpers/ports';
import { parseConfig } from '../../src/config';
import { generateApiKey } from '../../src/crypto/hash';
import { TEST_SECRET } from '../helpers/app';
import { describeOutcomes, largestCsv, uploadStorm } from '../helpers/upload-storm';
import { alive, waitFor } from '../helpers/worker';

// Issue 17, as issue 33 builds it: twenty uploads at once of the largest file the gateway
// takes, from four accounts, against the built server (and the stager it runs beside it) on its
// own embedded database and a small pool, while a fifth account lists its submissions; then
// SIGTERM while two more are queued or staging. Nothing hangs, every upload is answered at once
// (queued, or 429/503 with Retry-After), the queued ones are staged whole by the stager, the
// other account is served throughout, the server's memory stays bounded by the bodies it reads
// at once, and the stop ends the server, its stager and its database in time, no file left
// staging. The figures are printed; `npm run bench:uploads` measures them on their own.

const ROOT = join(import.meta.dirname, '..', '..');
const DEFAULTS = parseConfig({ GATEWAY_SECRET_KEY: TEST_SECRET });
/** The server alone: ~150 MB, plus what a body read at once costs (the body, its encryption). */
const BODY_MB = 60;
const BUDGET_MB = 150 + BODY_MB * DEFAULTS.GATEWAY_IMPORT_UPLOADS_MAX;
let dir: string;

beforeAll(() => {
  expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
  dir = mkdtempSync(join(tmpdir(), 'gateway-storm-'));
  chmodSync(dir, 0o755); // the embedded PostgreSQL runs as another OS user when we are root
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('20 uploads at once of the largest file on a pool of 4: answered at once, staged by the stager, the other account served, memory bounded, SIGTERM stops it all', async () => {
  const dataDir = join(dir, 'data');
  const [port, simPort] = [await reservePort(), await reservePort()];
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? '/root',
      PORT: String(port),
      GATEWAY_SIM_PORT: String(simPort),
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_RUN_WORKER: 'false',
      GATEWAY_DB_POOL: '4',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let sql: postgres.Sql | undefined;
  try {
    await waitFor(() => out.includes('Gateway listening') || undefined, 90_000, `the server:\n${out}`);
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    // The server's own database, attached to (not started) for the accounts and keys.
    sql = postgres((await startEmbedded({ dataDir })).url, { max: 1, onnotice: () => {} });
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [account] = await sql<{ id: number }[]>`INSERT INTO accounts (name) VALUES (${`Service ${i}`}) RETURNING id`;
      const key = generateApiKey();
      await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
      keys.push(key.plain);
    }
    const otherKey = keys.pop()!;
    const file = largestCsv(DEFAULTS.GATEWAY_IMPORT_MAX_ROWS, DEFAULTS.GATEWAY_MAX_BODY_BYTES);
    const base = `http://127.0.0.1:${port}`;

    const storm = await uploadStorm({ base, pid: child.pid!, keys, otherKey, file, uploads: 20, quietCalls: 50, settleTimeoutMs: 480_000 });
    console.log(
      [
        ...describeOutcomes(storm.uploads),
        `other account: quiet p95 ${storm.quiet.p95.toFixed(1)} ms, during p95 ${storm.loaded.p95.toFixed(1)} ms (max ${storm.loaded.max.toFixed(0)} ms, ${storm.loaded.n} calls)`,
        `peak RSS ${storm.peakRssMb.toFixed(0)} MB (budget ${BUDGET_MB}), after ${storm.rssAfterMb.toFixed(0)} MB`,
      ].join('\n'),
    );
    const admitted = storm.uploads.filter((u) => u.status === 201);
    // Each account's files waiting or staging, of four accounts.
    expect(admitted).toHaveLength(4 * DEFAULTS.GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT);
    expect(admitted.map((u) => u.answer)).toEqual(admitted.map(() => 'queued'));
    expect(admitted.map((u) => u.finalStatus)).toEqual(admitted.map(() => 'staged'));
    for (const refused of storm.uploads.filter((u) => u.status !== 201)) {
      expect([429, 503]).toContain(refused.status);
      expect(refused.retryAfter).toBe('10');
      // Answered once its body arrived, not after a staging.
      expect(refused.ms).toBeLessThan(15_000);
    }
    expect(storm.otherFailures).toBe(0);
    expect(storm.loaded.max).toBeLessThan(5_000);
    expect(storm.peakRssMb).toBeLessThan(BUDGET_MB);
    // Every connection back in the pool: none idle in a transaction, no advisory lock left.
    const [left] = await sql<{ idle: number; leases: number }[]>`
      SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE state = 'idle in transaction') AS idle,
             (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory') AS leases`;
    expect(left).toEqual({ idle: 0, leases: 0 });
    await sql.end();
    sql = undefined;

    // Two more large files queued or staging when the service manager stops the server.
    const more = await Promise.all(
      keys.slice(0, 2).map(async (key) => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(file)]), 'ultimul.csv');
        return (await fetch(`${base}/v1/import`, { method: 'POST', headers: { 'X-API-Key': key }, body: form })).status;
      }),
    );
    expect(more).toEqual([201, 201]);
    const sentAt = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await waitFor(() => !alive(postmaster) || undefined, 10_000, `the embedded database to stop:\n${out}`);
    expect(Date.now() - sentAt).toBeLessThan(DEFAULTS.GATEWAY_SHUTDOWN_S * 1000);
    expect(out).toContain('Gateway stopped');
    expect(out).toContain('Stager stopped');
  } finally {
    await sql?.end();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 600_000);
