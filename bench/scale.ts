// npm run bench:scale — one server and one worker against two servers and two workers, all
// built processes (dist/main.js, dist/worker.js) on one embedded PostgreSQL, under the same
// load: BENCH_SUBMISSIONS (3,000) submissions over 10 accounts posted by 32 clients, spread over
// the servers in turn as a load balancer would, and delivered by the workers to the simulated
// registry (dist/registry-sim.js, each call answered after 50 ms). Prints, for each layout,
// the rate the servers accepted them and the rate they reached the registry (first post to
// last send), the ratio of two to one (on two cores it will not double; it must not fall), and
// the most calls the registry saw at once for one account (at most GATEWAY_WORKER_CONCURRENCY),
// the CPU the servers, the workers and PostgreSQL spent per 1,000 submissions, and the peak
// RSS of a server and of a worker (/proc).
// BENCH_CLIENTS sets the clients (32).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { rssMb } from '../tests/helpers/upload-storm';
import { cpuSeconds, postgresCpuSeconds } from './cpu';
import { createBenchClient } from './http-client';
import { queueDrained, waitUntil } from './wait';
import { freePort, startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { parseConfig } from '../src/config';
import { createKeyring, encryptJson } from '../src/crypto/envelope';
import { generateApiKey } from '../src/crypto/hash';

const ROOT = join(import.meta.dirname, '..');
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 3_000);
const ACCOUNTS = 10;
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const LATENCY_MS = 50;
/** Submissions each server (and its worker) takes before the timed load, enough for V8 to have compiled their paths (BENCH_WARMUP; 0 for cold processes). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5_000);
// Warm-up submissions are numbered past the load's (their VINs stay 17 characters).
const WARMUP_FROM = 500_000;

function startProcess(script: string, env: Record<string, string>): { child: ChildProcess; stop: () => Promise<void> } {
  const child = spawn(process.execPath, [script], { cwd: ROOT, env: { ...process.env, GATEWAY_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const payload = (i: number) => ({
  vin: `WDB1234561A${String(100_000 + i)}`,
  nrInm: 'B123ABC',
  dataPrestatie: '2025-03-14',
  odometruFinal: 100_000 + i,
  prestatii: [{ cod_prestatie: 'OE-3' }, { cod_op_service: 'REV', denumire: 'Revizie' }],
});

interface Measured {
  accepted: number;
  acceptSeconds: number;
  sent: number;
  deliverSeconds: number;
  maxConcurrent: number;
  duplicates: number;
  /** CPU seconds over the timed load, first post to last send. */
  cpu: { servers: number; workers: number; postgres: number };
  /** The highest peak RSS (VmHWM, MB) of a server and of a worker, over their whole lives. */
  peakMb: { server: number; worker: number };
}

/** One layout on a database of its own: `n` servers and `n` workers, the load, and what the registry saw. */
async function run(n: number, round: number, pg: { adminUrl: string; url: string }, dataDir: string, secret: string, simUrl: string): Promise<Measured> {
  const name = `scale_${round}_${n}`;
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
  await admin.unsafe(`CREATE DATABASE ${name} OWNER "${new URL(pg.url).username}"`);
  await admin.end();
  const url = new URL(pg.url);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  const processes: Array<ReturnType<typeof startProcess> & { role: 'server' | 'worker' }> = [];
  try {
    await migrate(sql);
    const keyring = createKeyring(secret);
    const keys: string[] = [];
    for (let i = 1; i <= ACCOUNTS; i++) {
      const creds = encryptJson(keyring, { username: `bench${i}`, password: `pw${i}` });
      const [account] = await sql<{ id: number }[]>`INSERT INTO accounts (name, reg_creds_enc) VALUES (${`bench ${i}`}, ${creds}) RETURNING id`;
      const key = generateApiKey();
      await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
      await sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (${account!.id}, 'REV', 'OE-3')`;
      keys.push(key.plain);
    }
    const reset = await fetch(`${simUrl}/_sim/reset?records=1`, { method: 'POST' });
    const faults = await fetch(`${simUrl}/_sim/faults`, { method: 'POST', body: JSON.stringify({ latencyMs: LATENCY_MS }) });
    if (!reset.ok || !faults.ok) throw new Error('resetting the simulator failed');
    const env = { DATABASE_URL: databaseUrl, GATEWAY_SECRET_KEY: secret, GATEWAY_DATA_DIR: dataDir, GATEWAY_REGISTRY_URL: simUrl, GATEWAY_KEY_REQUESTS_PER_MIN: '0' };
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const port = await freePort();
      ports.push(port);
      processes.push({ role: 'server', ...startProcess('dist/main.js', { ...env, PORT: String(port), GATEWAY_RUN_WORKER: 'false' }) });
      processes.push({ role: 'worker', ...startProcess('dist/worker.js', { ...env, GATEWAY_WORKER_ID: `bench-worker-${i + 1}` }) });
    }
    // Until a server listens its fetch fails: not yet.
    for (const port of ports)
      await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, 60_000, `the server on ${port} and a worker`, 100);
    await waitUntil(
      async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM worker_state WHERE worker_id LIKE 'bench-worker-%'`)[0]!.n === n,
      60_000,
      'every worker',
      100,
    );

    // The lean client of bench:ingest: fetch's CPU would be taken from the servers on these cores.
    const clients = ports.map((port) => createBenchClient(`http://127.0.0.1:${port}`, CLIENTS));
    /** Posts submissions `from`..`from + count - 1` over the servers in turn; resolves with how many were queued. */
    const load = async (from: number, count: number) => {
      let next = from;
      let accepted = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = next++; i < from + count; i = next++) {
            const res = await clients[i % n]!.postJson('/v1/prezentari', { 'X-API-Key': keys[i % ACCOUNTS]! }, payload(i));
            if (res.status === 200 && (res.body as { status?: string }).status === 'queued') accepted++;
          }
        }),
      );
      return accepted;
    };
    const drained = () => waitUntil(() => queueDrained(sql), 600_000, 'the queue to drain', 50);
    // Long-lived processes are warm: each server and worker first takes WARMUP submissions (not timed), delivered before the load.
    await load(WARMUP_FROM, WARMUP * n);
    await drained();
    const [warm] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE status = 'sent'`;
    const cpu = () => {
      const of = (role: 'server' | 'worker') => processes.filter((p) => p.role === role).reduce((sum, p) => sum + cpuSeconds(p.child.pid!), 0);
      return { servers: of('server'), workers: of('worker'), postgres: postgresCpuSeconds() };
    };
    const cpuBefore = cpu();
    const began = performance.now();
    const accepted = await load(0, SUBMISSIONS);
    const acceptSeconds = (performance.now() - began) / 1000;
    for (const client of clients) client.close();
    await drained();
    const deliverSeconds = (performance.now() - began) / 1000;
    const cpuAfter = cpu();
    const [sent] = await sql<{ n: number }[]>`SELECT count(*)::int - ${warm!.n}::int AS n FROM submissions WHERE status = 'sent'`;
    const state = (await (await fetch(`${simUrl}/_sim/state`)).json()) as { duplicates: number; maxConcurrentSends: Record<string, number> };
    const peakOf = (role: 'server' | 'worker') => Math.max(...processes.filter((p) => p.role === role).map((p) => rssMb(p.child.pid!, 'VmHWM')));
    return {
      accepted,
      acceptSeconds,
      sent: sent!.n,
      deliverSeconds,
      maxConcurrent: Math.max(0, ...Object.values(state.maxConcurrentSends)),
      duplicates: state.duplicates,
      cpu: { servers: cpuAfter.servers - cpuBefore.servers, workers: cpuAfter.workers - cpuBefore.workers, postgres: cpuAfter.postgres - cpuBefore.postgres },
      peakMb: { server: peakOf('server'), worker: peakOf('worker') },
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await sql.end();
  }
}

async function main() {
  preserveExitCode();
  if (spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  const config = parseConfig(process.env);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const pg = await startEmbedded({ dataDir });
  const simPort = await freePort();
  const sim = startProcess('dist/registry-sim.js', {
    GATEWAY_SIM_USERS: Array.from({ length: ACCOUNTS }, (_, i) => `bench${i + 1}:pw${i + 1}`).join(','),
    GATEWAY_SIM_PORT: String(simPort),
  });
  const simUrl = `http://127.0.0.1:${simPort}`;
  try {
    await waitUntil(async () => (await fetch(`${simUrl}/_sim/state`).catch(() => undefined))?.ok ?? false, 20_000, 'the simulator', 100);
    const secret = randomBytes(32).toString('base64');
    const load = loadavg()[0]!;
    // In the order 1, 2, 2, 1: a load that drifts during the run weighs on both alike.
    const runs: Array<{ n: number; m: Measured }> = [];
    for (const [round, n] of [1, 2, 2, 1].entries()) runs.push({ n, m: await run(n, round, pg, dataDir, secret, simUrl) });
    const total = (n: number): Measured => {
      const of = runs.filter((r) => r.n === n).map((r) => r.m);
      const sum = (f: (m: Measured) => number) => of.reduce((a, m) => a + f(m), 0);
      return {
        accepted: sum((m) => m.accepted),
        acceptSeconds: sum((m) => m.acceptSeconds),
        sent: sum((m) => m.sent),
        deliverSeconds: sum((m) => m.deliverSeconds),
        maxConcurrent: Math.max(...of.map((m) => m.maxConcurrent)),
        duplicates: sum((m) => m.duplicates),
        cpu: { servers: sum((m) => m.cpu.servers), workers: sum((m) => m.cpu.workers), postgres: sum((m) => m.cpu.postgres) },
        peakMb: { server: Math.max(...of.map((m) => m.peakMb.server)), worker: Math.max(...of.map((m) => m.peakMb.worker)) },
      };
    };
    const [one, two] = [total(1), total(2)];
    const limit = config.GATEWAY_WORKER_CONCURRENCY;
    const perThousand = (seconds: number, m: Measured) => ((seconds * 1000) / m.sent).toFixed(2);
    const line = (label: string, m: Measured) =>
      `${label}  accepted ${m.accepted} at ${(m.accepted / m.acceptSeconds).toFixed(0)}/s; sent ${m.sent} at ${(m.sent / m.deliverSeconds).toFixed(0)}/s (first post to last send ${m.deliverSeconds.toFixed(1)} s); registry: at most ${m.maxConcurrent} calls at once for one account (limit ${limit}), ${m.duplicates} duplicates; ` +
      `CPU s per 1,000: servers ${perThousand(m.cpu.servers, m)}, workers ${perThousand(m.cpu.workers, m)}, PostgreSQL ${perThousand(m.cpu.postgres, m)}; ` +
      `peak RSS: a server ${m.peakMb.server.toFixed(0)} MB, a worker ${m.peakMb.worker.toFixed(0)} MB`;
    console.log(
      [
        `${SUBMISSIONS} submissions a run over ${ACCOUNTS} accounts, ${CLIENTS} clients, registry latency ${LATENCY_MS} ms; load average before ${load.toFixed(2)} on ${cpus().length} cores`,
        ...runs.map((r, i) => line(`run ${i + 1}: ${r.n === 1 ? '1 server + 1 worker  ' : '2 servers + 2 workers'}`, r.m)),
        'both runs of each layout together:',
        line('1 server + 1 worker  ', one),
        line('2 servers + 2 workers', two),
        `ratio 2 / 1: accepted ${(two.accepted / two.acceptSeconds / (one.accepted / one.acceptSeconds)).toFixed(2)}, sent ${(two.sent / two.deliverSeconds / (one.sent / one.deliverSeconds)).toFixed(2)} (must not fall below 1 by more than the noise)`,
      ].join('\n'),
    );
    const wrong = runs.some(({ m }) => m.accepted !== SUBMISSIONS || m.sent !== SUBMISSIONS || m.duplicates !== 0 || m.maxConcurrent > limit);
    if (wrong) process.exitCode = 1;
  } finally {
    await sim.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
