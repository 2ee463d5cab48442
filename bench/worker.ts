// `npm run bench:worker`: 2,000 queued submissions over 10 accounts, delivered by one worker
// to the simulated registry (a separate process) answering each call after 50 ms. Prints the
// delivery rate, the rate the configured concurrency allows, their ratio, a baseline measured
// in the same run (the same sends through the HTTP transport alone) and duplicates.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../db/client';
import { freePort, startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { parseConfig } from '../src/config';
import { createKeyring, encryptJson } from '../src/crypto/envelope';
import { createWorkerContext } from '../worker/context';
import { startWorker } from '../worker/runner';
import { queueDrained, waitUntil } from './wait';

const SUBMISSIONS = 2_000;
const ACCOUNTS = 10;
const LATENCY_MS = 50;

// The worker runs in this process: the bench polls rarely, so its own queries take little of
// the worker's event loop. The rate is measured from the attempt history, not from the polls.
const BASELINE_USER = 'baseline';

/**
 * The baseline, measured first (bench/worker-baseline.ts, in a child process): the same
 * number of sends at the same total concurrency through the worker's HTTP transport alone.
 * It also warms the simulator, as a registry that has not just started would be; its records
 * and counters are then cleared and the latency set again. The worker itself starts cold.
 */
async function baseline(simUrl: string, concurrency: number): Promise<{ sent: number; seconds: number }> {
  const args = [
    '--import',
    'tsx',
    join(import.meta.dirname, 'worker-baseline.ts'),
    '--url',
    simUrl,
    '--user',
    BASELINE_USER,
    '--sends',
    String(SUBMISSIONS),
    '--concurrency',
    String(concurrency),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the baseline client exited with ${code}`);
  const reset = await fetch(`${simUrl}/_sim/reset?records=1`, { method: 'POST' });
  const faults = await fetch(`${simUrl}/_sim/faults`, { method: 'POST', body: JSON.stringify({ latencyMs: LATENCY_MS }) });
  if (!reset.ok || !faults.ok) throw new Error('resetting the simulator after the baseline failed');
  return JSON.parse(out) as { sent: number; seconds: number };
}

async function main() {
  preserveExitCode();
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-worker-'));
  const pg = await startEmbedded({ dataDir });
  const simPort = await freePort();
  const sim = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', 'worker', 'registry', 'sim-main.ts'), '--port', String(simPort), '--latency', String(LATENCY_MS)],
    {
      stdio: 'ignore',
      // One registry login per account, so the simulator can report each account's concurrency.
      env: {
        PATH: process.env.PATH,
        GATEWAY_SIM_USERS: [...Array.from({ length: ACCOUNTS }, (_, i) => `bench${i + 1}:pw${i + 1}`), `${BASELINE_USER}:${BASELINE_USER}`].join(','),
      },
    },
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  try {
    const secret = randomBytes(32).toString('base64');
    const config = parseConfig({ ...process.env, DATABASE_URL: pg.url, GATEWAY_SECRET_KEY: secret, GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'error' });
    const { sql, close } = createDb(pg.url, { max: 2 });
    await migrate(sql);
    const keyring = createKeyring(secret);
    const ids: number[] = [];
    for (let i = 1; i <= ACCOUNTS; i++) {
      const creds = encryptJson(keyring, { username: `bench${i}`, password: `pw${i}` });
      const [a] = await sql<{ id: number }[]>`INSERT INTO accounts (name, reg_creds_enc) VALUES (${`bench ${i}`}, ${creds}) RETURNING id`;
      ids.push(a!.id);
    }
    // Distinct content per row: VIN suffix and odometer from the row number.
    await sql`
      INSERT INTO submissions (account_id, status, payload_json, prestatii, idempotency_key, vin, nr_inm, data_prestatie)
      SELECT (${`{${ids.join(',')}}`}::int[])[1 + (g % ${ACCOUNTS})], 'queued',
        jsonb_build_object('vin', 'WDB1234561' || lpad(g::text, 7, '0'), 'nrInm', 'B123ABC', 'dataPrestatie', '2025-03-14',
          'odometruInitial', null, 'odometruFinal', 100000 + g, 'prestatii', jsonb_build_array(jsonb_build_object('cod_prestatie', 'OE-3', 'denumire', '')), 'b64Image', ''),
        '[{"cod_prestatie":"OE-3","denumire":"REVIZIE PERIODICĂ"}]'::jsonb,
        'bench-' || g, 'WDB1234561' || lpad(g::text, 7, '0'), 'B123ABC', '2025-03-14'
      FROM generate_series(1, ${SUBMISSIONS}) g`;
    // Statistics and a visibility map as a live database has them; otherwise autovacuum
    // analyses the freshly filled table while the worker runs.
    await sql`VACUUM ANALYZE submissions`;
    await waitUntil(async () => (await fetch(`${simUrl}/_sim/state`).catch(() => undefined))?.ok ?? false, 20_000, 'the simulator');
    const base = await baseline(simUrl, ACCOUNTS * config.GATEWAY_WORKER_CONCURRENCY);

    const ctx = createWorkerContext({ config, databaseUrl: pg.url, secretKey: secret, registryUrl: simUrl, log: console });
    const load0 = loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    const worker = await startWorker(ctx);
    await waitUntil(() => queueDrained(sql), 300_000, 'the queue to drain', 250);
    const cpu = process.cpuUsage(cpu0);
    await worker.stop();
    await ctx.close();

    // Measured from the first claim to the last answer recorded, from the attempt history.
    // Where the time beyond the allowed rate goes: the start (the first claim, a login, the
    // first send) and each registry call as the worker timed it, against the simulated 50 ms.
    const [m] = await sql<{ sent: number; errors: number; attempts: number; seconds: number; firstMs: number; callMs: number }[]>`
      SELECT (SELECT count(*)::int FROM submissions WHERE status = 'sent') AS sent,
             (SELECT count(*)::int FROM submissions WHERE status = 'error') AS errors,
             count(*)::int AS attempts,
             extract(epoch FROM max(ended_at) - min(started_at))::float8 AS seconds,
             (extract(epoch FROM min(ended_at) - min(started_at)) * 1000)::float8 AS "firstMs",
             avg(latency_ms)::float8 AS "callMs"
      FROM submission_attempts`;
    const state = (await (await fetch(`${simUrl}/_sim/state`)).json()) as { records: unknown[]; duplicates: number; maxConcurrentSends: Record<string, number> };
    const maxConcurrent = Math.max(...Object.values(state.maxConcurrentSends));
    await close();

    const rate = m!.sent / m!.seconds;
    const baseRate = base.sent / base.seconds;
    const allowed = (ACCOUNTS * config.GATEWAY_WORKER_CONCURRENCY) / (LATENCY_MS / 1000);
    const lines = [
      `submissions            ${SUBMISSIONS} over ${ACCOUNTS} accounts, registry latency ${LATENCY_MS} ms`,
      `per-account concurrency ${config.GATEWAY_WORKER_CONCURRENCY} (GATEWAY_WORKER_CONCURRENCY), in flight max ${config.GATEWAY_WORKER_MAX_INFLIGHT}`,
      `sent / error / attempts ${m!.sent} / ${m!.errors} / ${m!.attempts}`,
      `elapsed                ${m!.seconds.toFixed(2)} s  (worker CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; load average before ${load0.toFixed(2)} on ${cpus().length} cores)`,
      `delivery rate          ${rate.toFixed(1)} /s`,
      `allowed rate           ${allowed.toFixed(1)} /s  (accounts × concurrency / latency)`,
      `ratio                  ${(rate / allowed).toFixed(3)}  (target ≥ 0.9)`,
      `baseline               ${baseRate.toFixed(1)} /s  (${(baseRate / allowed).toFixed(3)} of allowed: the worker's HTTP transport alone, same sends and concurrency, no database)`,
      `worker / baseline      ${(rate / baseRate).toFixed(3)}`,
      `first answer recorded  ${m!.firstMs.toFixed(0)} ms after the first claim (claim, login, send)`,
      `registry call          ${m!.callMs.toFixed(1)} ms on average as the worker timed it (simulated ${LATENCY_MS} ms)`,
      `records at registry    ${state.records.length}`,
      `max concurrent sends   ${maxConcurrent} per account at the registry (limit ${config.GATEWAY_WORKER_CONCURRENCY})`,
      `duplicates at registry ${state.duplicates}  (must be 0)`,
    ];
    console.log(lines.join('\n'));
    if (state.duplicates !== 0 || m!.sent !== SUBMISSIONS || maxConcurrent > config.GATEWAY_WORKER_CONCURRENCY) process.exitCode = 1;
  } finally {
    sim.kill('SIGTERM');
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
