// npm run bench:json-stall — how long a hostile JSON body stalls everyone else. The server runs
// as a child process; a small request (GET /healthz) is timed every 10 ms, first alone (the
// baseline), then while 1 and 10 bodies of ~14 MB of nested arrays are posted. Prints the
// slowest small request of each phase, its ratio to the baseline, and the server's peak RSS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { generateApiKey } from '../src/crypto/hash';
import { rssMb } from '../tests/helpers/upload-storm';
import { startServerProcess } from './server';

const BODY_BYTES = 14 * 1024 * 1024 - 1024;

/** The slowest of the small requests sent every 10 ms while `load` runs. */
async function slowestWhile(base: string, load: () => Promise<unknown>): Promise<number> {
  let slowest = 0;
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await load();
  running = false;
  await probe;
  return slowest;
}

async function main() {
  preserveExitCode();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-json-stall-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  await migrate(sql);
  const key = generateApiKey();
  await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (1, ${key.hash}, ${key.prefix})`;
  const { port, child, stop } = await startServerProcess({ databaseUrl: pg.url, dataDir });
  const base = `http://127.0.0.1:${port}`;
  const deep = '['.repeat(BODY_BYTES / 2) + ']'.repeat(BODY_BYTES / 2);
  const post = () => fetch(`${base}/v1/prezentari`, { method: 'POST', headers: { 'X-API-Key': key.plain, 'Content-Type': 'application/json' }, body: deep }).then((r) => r.status);
  try {
    const baseline = await slowestWhile(base, () => new Promise((resolve) => setTimeout(resolve, 2000)));
    const statuses: number[] = [];
    const one = await slowestWhile(base, async () => statuses.push(await post()));
    const ten = await slowestWhile(base, async () => statuses.push(...(await Promise.all(Array.from({ length: 10 }, post)))));
    console.log(`body: ${(BODY_BYTES / 1024 / 1024).toFixed(1)} MB of nested arrays; answers: ${[...new Set(statuses)].join(', ')}`);
    console.log(`slowest small request alone:         ${baseline.toFixed(0)} ms`);
    console.log(`slowest beside 1 deep body:          ${one.toFixed(0)} ms  (× ${(one / baseline).toFixed(1)})`);
    console.log(`slowest beside 10 deep bodies at once: ${ten.toFixed(0)} ms  (× ${(ten / baseline).toFixed(1)})`);
    console.log(`server peak RSS: ${rssMb(child.pid!, 'VmHWM').toFixed(0)} MB`);
  } finally {
    await stop();
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
