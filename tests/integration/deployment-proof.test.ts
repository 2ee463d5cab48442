import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createDb, type DbHandle } from '../../db/client';
import { createKeyring, encryptJson } from '../../src/crypto/envelope';
import { generateApiKey } from '../../src/crypto/hash';
import { createUser } from '../../src/services/users/users';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../../worker/registry/simulator';
import { TEST_SECRET } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { buildDist, deploymentEnv, spawnGateway, stopGateway, webSession, type GatewayProcess } from '../helpers/gateway-processes';
import { csvFile, HEADER } from '../helpers/import-files';
import { startOwnDatabase, type OwnDatabase } from '../helpers/own-database';
import { PASSWORD } from '../helpers/web';
import { waitFor } from '../helpers/worker';

// The proof of issue 22: two built servers (GATEWAY_RUN_WORKER=false) and two built workers,
// as processes, on one PostgreSQL and the simulated registry. A mixed load goes through both
// servers; one server and one worker are killed (SIGKILL) mid-load and started again; then
// the database is stopped for 20 s and started again. Afterwards: every accepted submission
// is stored once and sent once, the limits held for the deployment, one registry login per
// account, and every process came back by itself.

const DOWN_MS = 20_000;
const KEY_LIMIT = 30;
const AUTH_FAILURES = 10;

let pg: OwnDatabase;
let db: DbHandle;
let sim: Simulator;
let env: Record<string, string>;
const processes: GatewayProcess[] = [];
const accounts: Array<{ id: number; key: string }> = [];
let probeKey: string;
const EMAIL = 'proba@service.ro';

const start = async (kind: 'server' | 'worker', name: string, extra: Record<string, string> = {}) => {
  const p = await spawnGateway(kind, name, { ...env, ...extra });
  processes.push(p);
  return p;
};

async function makeAccount(name: string, username: string, password: string) {
  const [account] = await db.sql<{ id: number }[]>`
    INSERT INTO accounts (name, reg_creds_enc) VALUES (${name}, ${encryptJson(createKeyring(TEST_SECRET), { username, password })}) RETURNING id`;
  const key = generateApiKey();
  await db.sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
  return { id: account!.id, key: key.plain };
}

beforeAll(async () => {
  buildDist();
  pg = await startOwnDatabase();
  db = createDb(pg.url, { max: 2 });
  sim = await startSimulator({ users: parseSimUsers('demo:demo,alt:secret') });
  accounts.push(await makeAccount('Service unu', 'demo', 'demo'), await makeAccount('Service doi', 'alt', 'secret'));
  const probe = generateApiKey();
  await db.sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${accounts[0]!.id}, ${probe.hash}, ${probe.prefix})`;
  probeKey = probe.plain;
  await createUser(db.db, { accountId: accounts[0]!.id, email: EMAIL, password: PASSWORD, admin: false, scryptN: 1024 });
  env = deploymentEnv(pg.url, sim.url, {
    GATEWAY_KEY_REQUESTS_PER_MIN: String(KEY_LIMIT),
    GATEWAY_AUTH_FAILURES_PER_MIN: String(AUTH_FAILURES),
    GATEWAY_SENDING_STALE_S: '5',
    GATEWAY_WORKER_CONCURRENCY: '2',
  });
  // In this order in `processes`, whichever starts first.
  const started = await Promise.all([
    spawnGateway('server', 'server-a', env),
    spawnGateway('server', 'server-b', env),
    spawnGateway('worker', 'worker-1', env),
    spawnGateway('worker', 'worker-2', env),
  ]);
  processes.push(...started);
}, 120_000);

afterAll(async () => {
  for (const p of processes) await stopGateway(p);
  await db?.close();
  await sim?.close();
  await pg?.close();
}, 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A request that may meet a server being killed: its refusal is an answer like any other (0). */
const call = (url: string, init: RequestInit & { headers?: Record<string, string> }) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(10_000) }).catch(() => ({ status: 0, json: async () => ({}) }) as unknown as Response);

describe('two servers and two workers on one database', () => {
  it('survive SIGKILLs and a 20 s database outage: every accepted submission sent once, limits held, one login per account', async () => {
    onTestFailed(() => {
      for (const p of processes) console.log(`--- ${p.name} (${p.running() ? 'running' : 'ended'})\n${p.output().slice(-3000)}`);
    });
    const [serverA, serverB, , worker2] = processes as [GatewayProcess, GatewayProcess, GatewayProcess, GatewayProcess];
    const servers = () => [serverA.url, serverB.url];
    const accepted = new Set<string>();
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    sim.state.setFaults({ latencyMs: 30 });

    // The load: JSON posts from both accounts through both servers, sign-ins, bad keys.
    let n = 0;
    let loading = true;
    const post = async (i: number) => {
      const account = accounts[i % 2]!;
      const vin = `WDB1234561P${String(i).padStart(6, '0')}`;
      const res = await call(`${servers()[i % 2]}/v1/prezentari`, {
        method: 'POST',
        headers: { 'X-API-Key': account.key, 'Content-Type': 'application/json', 'X-Forwarded-For': '192.0.2.1' },
        body: JSON.stringify(makeSubmission({ vin })),
      });
      count(res.status);
      if (res.status >= 200 && res.status < 300) accepted.add(vin);
    };
    const load = (async () => {
      while (loading && n < 2 * (KEY_LIMIT - 6)) {
        const i = n++;
        await Promise.all([
          post(i),
          i % 6 === 0
            ? webSession(servers()[i % 2]!, `198.51.100.${i % 250}`)
                .login(EMAIL, PASSWORD)
                .catch(() => undefined)
            : undefined,
          call(`${servers()[(i + 1) % 2]}/v1/ping`, { headers: { 'X-API-Key': 'gw_nu-exista', 'X-Forwarded-For': '192.0.2.99' } }),
        ]);
        await sleep(40);
      }
    })();

    // An import through server A: upload, then commit what the preview shows.
    const rows = Array.from({ length: 5 }, (_, i) => [`WDB1234561R${String(i).padStart(6, '0')}`, `B${i}IMP`, '14.03.2025', null, 120_000 + i, null, null, 'OE-3']);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(csvFile([[...HEADER, 'Cod prestație'], ...rows]))]), 'prestatii.csv');
    const uploaded = await fetch(`${serverA.url}/v1/import`, { method: 'POST', body: form, headers: { 'X-API-Key': accounts[0]!.key } });
    expect(uploaded.status).toBe(201);
    const batchId = ((await uploaded.json()) as { batch_id: number }).batch_id;

    // Mid-load: a server and a worker die outright, and are started again.
    await sleep(1_500);
    await stopGateway(serverB, 'SIGKILL');
    await stopGateway(worker2, 'SIGKILL');
    await sleep(1_000);
    const serverB2 = await start('server', 'server-b', { PORT: new URL(serverB.url).port });
    const worker2b = await start('worker', 'worker-2b');

    const preview = (await (await fetch(`${serverA.url}/v1/import/${batchId}/preview`, { headers: { 'X-API-Key': accounts[0]!.key } })).json()) as {
      n_to_commit: number;
      rows_hash: string;
    };
    expect(preview.n_to_commit).toBe(5);
    const committed = await fetch(`${serverB2.url}/v1/import/${batchId}/commit`, {
      method: 'POST',
      headers: { 'X-API-Key': accounts[0]!.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ n_confirmed: preview.n_to_commit, rows_hash: preview.rows_hash }),
    });
    expect(committed.status).toBe(200);
    for (const row of rows) accepted.add(row[0] as string);
    loading = false;
    await load;

    // The limits, through both servers together: a key's requests per minute, an address's bad keys.
    const limited: number[] = [];
    for (let i = 0; i < 2 * KEY_LIMIT; i++) {
      limited.push((await call(`${servers()[i % 2]}/v1/ping`, { headers: { 'X-API-Key': probeKey } })).status);
      if (i % 4 === 3) await sleep(150);
    }
    const badKeys: number[] = [];
    for (let i = 0; i < 3 * AUTH_FAILURES; i++) {
      badKeys.push((await call(`${servers()[i % 2]}/v1/ping`, { headers: { 'X-API-Key': 'gw_alta-gresita', 'X-Forwarded-For': '203.0.113.50' } })).status);
      if (i % 4 === 3) await sleep(150);
    }

    // The database goes away for 20 s, then comes back on the same port.
    await pg.stop();
    const stoppedAt = performance.now();
    let refused = 0;
    while (performance.now() - stoppedAt < DOWN_MS) {
      const res = await call(`${servers()[refused % 2]}/v1/prezentari`, {
        method: 'POST',
        headers: { 'X-API-Key': accounts[1]!.key, 'Content-Type': 'application/json' },
        body: JSON.stringify(makeSubmission({ vin: 'WDB1234561Z000001' })),
      });
      expect(res.status).toBe(503);
      refused += 1;
      await sleep(500);
    }
    await pg.start();
    const restartedAt = performance.now();
    for (const url of servers()) await waitFor(async () => (await call(`${url}/healthz`, {})).status === 200 || undefined, 20_000, `${url} to be healthy again`);
    const backMs = performance.now() - restartedAt;
    const after = 'WDB1234561S000001';
    expect(
      (
        await call(`${serverB2.url}/v1/prezentari`, {
          method: 'POST',
          headers: { 'X-API-Key': accounts[1]!.key, 'Content-Type': 'application/json' },
          body: JSON.stringify(makeSubmission({ vin: after })),
        })
      ).status,
    ).toBe(200);
    accepted.add(after);

    // Every accepted submission stored once and sent once; nothing else reached the registry.
    const vins = [...accepted];
    await waitFor(
      async () => {
        const [r] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE status = 'sent' AND payload_json->>'vin' = ANY(${vins})`;
        return r!.n === vins.length || undefined;
      },
      30_000,
      'every accepted submission to be sent',
    ).catch(async (error: unknown) => {
      const rows = await db.sql`
        SELECT s.id, s.payload_json->>'vin' AS vin, s.status, s.worker_id, s.heartbeat_at, s.next_attempt_at,
               (SELECT json_agg(json_build_object('o', a.outcome, 'w', a.worker_id, 'e', a.ended_at) ORDER BY a.id) FROM submission_attempts a WHERE a.submission_id = s.id) AS att
        FROM submissions s WHERE s.status <> 'sent'`;
      const missing = vins.filter((v) => !rows.some((r) => r.vin === v));
      throw new Error(`${String(error)}\nnot sent: ${JSON.stringify(rows)}\naccepted, not stored: ${missing.length}`);
    });
    const deliveredMs = performance.now() - restartedAt;
    const stored = await db.sql<{ vin: string; n: number }[]>`SELECT payload_json->>'vin' AS vin, count(*)::int AS n FROM submissions GROUP BY 1`;
    for (const vin of vins) expect(stored.find((s) => s.vin === vin)?.n, vin).toBe(1);
    for (const vin of vins)
      expect(
        sim.state.records.filter((r) => r.record.vin === vin),
        vin,
      ).toHaveLength(1);
    expect(sim.state.duplicates()).toBe(0);
    const unsent = await db.sql`SELECT id, status FROM submissions WHERE status <> 'sent'`;
    expect(unsent).toEqual([]);
    expect(sim.state.records.length).toBe(stored.length);
    expect(stored.some((s) => s.vin === 'WDB1234561Z000001')).toBe(false);

    // The limits held for the deployment, not per server (give or take the last 100 ms of the other's hits).
    const passed = limited.filter((s) => s === 200).length;
    expect(passed).toBeGreaterThanOrEqual(KEY_LIMIT - 2);
    // Per server it would be 2 × KEY_LIMIT; the slack is the other server's hits of its last 100 ms.
    expect(passed).toBeLessThanOrEqual(KEY_LIMIT + 5);
    expect(limited.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    const unauthorised = badKeys.filter((s) => s === 401).length;
    expect(unauthorised).toBeGreaterThanOrEqual(AUTH_FAILURES - 2);
    expect(unauthorised).toBeLessThanOrEqual(AUTH_FAILURES + 4);
    expect(badKeys.filter((s) => s !== 401).every((s) => s === 429)).toBe(true);

    // One registry login per account, whatever the workers, the kill and the outage.
    expect(sim.state.counters.logins).toBe(2);

    // Every process came back by itself; the killed ones were replaced, nothing else.
    for (const p of [serverA, serverB2, processes[2]!, worker2b]) expect(p.running(), p.name).toBe(true);
    const health = (await (await call(`${serverA.url}/healthz`, {})).json()) as { workers: Array<{ id: string; alive: boolean }> };
    // The two that run now are alive (the killed one may still count as alive for WORKER_ALIVE_S after its last beat).
    expect(health.workers.filter((w) => w.alive).map((w) => w.id)).toEqual(expect.arrayContaining(['worker-1', 'worker-2b']));

    console.log(
      `load: ${n} posts (${[...statuses].map(([s, k]) => `${s}×${k}`).join(', ')}), ${vins.length} accepted; key limit ${passed}/${2 * KEY_LIMIT} passed; ` +
        `bad keys ${unauthorised}/${3 * AUTH_FAILURES} answered 401; database down ${DOWN_MS / 1000} s: ${refused} posts answered 503; ` +
        `servers healthy ${Math.round(backMs)} ms after the restart, every submission sent ${Math.round(deliveredMs)} ms after it; registry logins ${sim.state.counters.logins}`,
    );
  }, 150_000);
});
