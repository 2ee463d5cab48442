import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db';
import { buildDist, deploymentEnv, type GatewayProcess, spawnGateway, stopGateway } from '../helpers/gateway-processes';
import { csvFile, HEADER, uploadTo } from '../helpers/import-files';
import { waitFor } from '../helpers/worker';

// The built stager (dist/stager.js) staging a large file when its process ends: stopped by a
// service manager (SIGTERM) or killed outright (SIGKILL). The batch is never left `staging`:
// back in the queue at once, or taken up again by another stager within the stale bound.

const ROWS = 60_000;
const STALE_S = 3;
// The least GATEWAY_SHUTDOWN_S allows (GATEWAY_WORKER_SHUTDOWN_S + 10).
const SHUTDOWN_S = 11;
const db = useTestDatabase('each');
let file: Buffer;
const processes: GatewayProcess[] = [];

beforeAll(() => {
  buildDist();
  file = csvFile([HEADER, ...Array.from({ length: ROWS }, (_, i) => [`WDB1234561A${String(100_000 + i)}`, 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);
});
afterAll(async () => {
  for (const p of processes) await stopGateway(p);
});

const env = () =>
  deploymentEnv(db.url, 'http://127.0.0.1:9', {
    GATEWAY_REQUIRE_API_KEY: 'false',
    GATEWAY_IMPORT_FIRST_ROWS: '50',
    GATEWAY_IMPORT_HEARTBEAT_S: '1',
    GATEWAY_IMPORT_STALE_S: String(STALE_S),
    GATEWAY_STAGERS: '0',
    GATEWAY_WORKER_SHUTDOWN_S: '1',
    GATEWAY_SHUTDOWN_S: String(SHUTDOWN_S),
  });

async function start(kind: 'server' | 'stager', name: string, extra: Record<string, string> = {}) {
  const p = await spawnGateway(kind, name, { ...env(), ...extra });
  processes.push(p);
  return p;
}

async function batchState(id: number) {
  const [batch] = await db.sql<{ status: string; row_count: number; claims: number; claimed_by: string | null }[]>`
    SELECT b.status, b.row_count, u.claims, u.claimed_by FROM import_batches b JOIN import_uploads u ON u.batch_id = b.id WHERE b.id = ${id}`;
  const [rows] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_rows WHERE batch_id = ${id}`;
  return { ...batch!, rows: rows!.n };
}

/** Uploads the large file (answered `queued`) and waits until its stager committed the first part. */
async function uploadAndStage(server: GatewayProcess): Promise<number> {
  const res = await uploadTo(server.url, file, 'mare.csv');
  const body = (await res.json()) as { batch_id: number; status: string };
  expect([res.status, body.status]).toEqual([201, 'queued']);
  await waitFor(async () => (await batchState(body.batch_id)).row_count >= 50 || undefined, 30_000, 'the first part staged');
  return body.batch_id;
}

describe('a stager process that ends while it stages a file', () => {
  it('runs at the lowest CPU priority, every thread of it; the server does not', async () => {
    const server = await start('server', 'server-p');
    const stager = await start('stager', 'stager-p');
    const tasks = readdirSync(`/proc/${stager.child.pid}/task`);
    expect(tasks.length).toBeGreaterThan(1);
    for (const task of tasks) expect(getPriority(Number(task)), `thread ${task}`).toBe(19);
    expect(getPriority(server.child.pid!)).toBe(0);
    await stopGateway(stager, 'SIGTERM');
    await stopGateway(server, 'SIGTERM');
  }, 90_000);

  it('SIGTERM: the stager exits 0 within its shutdown time, its file back in the queue without its rows; another stages it', async () => {
    const server = await start('server', 'server-t');
    // At normal priority: its stop is measured, not how long a machine this busy starves a nice 19.
    const stager = await start('stager', 'stager-t', { GATEWAY_STAGER_NICE: '0' });
    const id = await uploadAndStage(server);
    const stopping = Date.now();
    stager.child.kill('SIGTERM');
    expect((await stager.exited).code).toBe(0);
    expect(Date.now() - stopping).toBeLessThan((SHUTDOWN_S + 2) * 1000);
    // Handed back without its rows (or, on a fast machine, staged before the signal came): never left staging.
    const left = await batchState(id);
    if (left.status !== 'staged') expect(left).toEqual({ status: 'queued', row_count: 0, claims: 0, claimed_by: null, rows: 0 });
    const next = await start('stager', 'stager-t2');
    await waitFor(async () => (await batchState(id)).status === 'staged' || undefined, 60_000, 'staged by the next stager');
    expect(await batchState(id)).toMatchObject({ row_count: ROWS, rows: ROWS, claims: 1 });
    await stopGateway(next, 'SIGTERM');
    await stopGateway(server, 'SIGTERM');
  }, 120_000);

  it('SIGKILL: another stager takes the file up again within the stale bound and stages it whole', async () => {
    const server = await start('server', 'server-k');
    const killed = await start('stager', 'stager-k');
    const other = await start('stager', 'stager-k2');
    // Whichever of the two claimed it is killed.
    const id = await uploadAndStage(server);
    const holder = (await batchState(id)).claimed_by!;
    const [victim, survivor] = holder.endsWith(`:${killed.child.pid}`) ? [killed, other] : [other, killed];
    await stopGateway(victim, 'SIGKILL');
    const killedAt = Date.now();
    expect(await batchState(id)).toMatchObject({ status: 'staging' });
    await waitFor(async () => (await batchState(id)).claims === 2 || undefined, 30_000, 'taken up again');
    // Its claim is stale STALE_S after its last heartbeat; the survivor looks every second.
    expect(Date.now() - killedAt).toBeLessThan((STALE_S + 3) * 1000);
    await waitFor(async () => ['staged', 'failed'].includes((await batchState(id)).status) || undefined, 60_000, 'staged after the kill');
    expect(await batchState(id)).toMatchObject({ status: 'staged', row_count: ROWS, rows: ROWS, claimed_by: expect.stringContaining(String(survivor.child.pid)) });
    await stopGateway(survivor, 'SIGTERM');
    await stopGateway(server, 'SIGTERM');
  }, 150_000);
});
