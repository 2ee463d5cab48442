import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePort } from '../helpers/ports';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { csvFile, HEADER, uploadTo } from '../helpers/import-files';
import { waitFor } from '../helpers/worker';

// The built server staging a large file in the background when its process ends: stopped by
// a service manager (SIGTERM) or killed outright. Either way the batch ends `failed` without
// rows, never half-staged and shown as complete.

const ROOT = join(import.meta.dirname, '..', '..');
const ROWS = 60_000;
const db = useTestDatabase('each');
let dataDir: string;
let file: Buffer;

beforeAll(() => {
  expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
  file = csvFile([HEADER, ...Array.from({ length: ROWS }, (_, i) => [`WDB1234561A${String(100_000 + i)}`, 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-staging-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Server {
  child: ChildProcess;
  port: number;
  out: () => string;
  exited: Promise<number | null>;
}

async function startServer(): Promise<Server> {
  const [port, simPort] = [await reservePort(), await reservePort()];
  const env = {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? '/root',
    DATABASE_URL: db.url,
    GATEWAY_SECRET_KEY: TEST_SECRET,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_REQUIRE_API_KEY: 'false',
    GATEWAY_RUN_WORKER: 'false',
    GATEWAY_IMPORT_FIRST_ROWS: '50',
    PORT: String(port),
    GATEWAY_SIM_PORT: String(simPort),
  };
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(() => out.includes('Gateway listening') || undefined, 60_000, `the server:\n${out}`);
  return { child, port, out: () => out, exited };
}

/** Uploads the large file: the server answers once the first rows are staged. */
async function uploadLarge(server: Server): Promise<number> {
  const res = await uploadTo(`http://127.0.0.1:${server.port}`, file, 'mare.csv');
  const body = (await res.json()) as { batch_id: number; status: string };
  expect([res.status, body.status]).toEqual([201, 'staging']);
  return body.batch_id;
}

async function batchState(id: number) {
  const [batch] = await db.sql<{ status: string; error: { cod: string; status: number } | null }[]>`SELECT status, error FROM import_batches WHERE id = ${id}`;
  const [rows] = await db.sql<
    { n: number }[]
  >`SELECT (SELECT count(*) FROM import_rows WHERE batch_id = ${id}) + (SELECT count(*) FROM import_row_blocks WHERE batch_id = ${id}) AS n`;
  return { status: batch!.status, cod: batch!.error?.cod ?? null, rows: Number(rows!.n) };
}

describe('a server that stops while a file is staging', () => {
  it('SIGTERM: interrupts the staging, fails the batch and removes its rows, then exits 0', async () => {
    const server = await startServer();
    try {
      const id = await uploadLarge(server);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(await batchState(id)).toEqual({ status: 'failed', cod: 'IMPORT_INTRERUPT', rows: 0 });
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('SIGKILL: the batch stays staging until the next start fails it and removes its rows', async () => {
    const killed = await startServer();
    let id: number;
    try {
      id = await uploadLarge(killed);
    } finally {
      killed.child.kill('SIGKILL');
      await killed.exited;
    }
    expect(await batchState(id)).toMatchObject({ status: 'staging', cod: null });

    const next = await startServer();
    try {
      expect(await batchState(id)).toEqual({ status: 'failed', cod: 'IMPORT_INTRERUPT', rows: 0 });
      expect(next.out()).toContain(`now failed: ${id}`);
      const res = await fetch(`http://127.0.0.1:${next.port}/v1/import/${id}/preview`);
      expect(await res.json()).toMatchObject({
        status: 'failed',
        total_rows: 0,
        error: { cod: 'IMPORT_INTRERUPT', cauza: 'Procesul care încărca fișierul s-a oprit înainte de final.' },
      });
    } finally {
      next.child.kill('SIGKILL');
    }
  }, 120_000);
});
