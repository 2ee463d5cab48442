// npm run bench:uploads — the built server (`dist/main.js`, default limits unless set in the
// environment) taking BENCH_UPLOADS (20) uploads at once of the largest allowed file (a csv of
// GATEWAY_IMPORT_MAX_ROWS rows filling GATEWAY_MAX_BODY_BYTES), from BENCH_ACCOUNTS (4)
// accounts, while another account lists its submissions in a loop. Prints what each upload
// answered, the other account's p50/p95 against the same call on the quiet server (issue 17's
// target: p95 ≤ 2 × quiet), over the whole storm and split into while the files arrived and
// while the queued ones were staged (by the stager the server runs), the server's peak RSS and
// its RSS once the storm is over.
// BENCH_STORMS (1) storms in a row on the same server, and the median of their p95 ratios.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { parseConfig } from '../src/config';
import { generateApiKey } from '../src/crypto/hash';
import { startServerProcess } from './server';
import { describeOutcomes, largestCsv, rssMb, uploadStorm, type Latencies } from '../tests/helpers/upload-storm';

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 4);
/** Storms in a row on the same server (each after the last one's stagings ended): one storm's p95 swings with the machine. */
const STORMS = Number(process.env.BENCH_STORMS ?? 1);

async function main() {
  preserveExitCode();
  const config = parseConfig({ ...process.env, GATEWAY_SECRET_KEY: randomBytes(32).toString('base64') });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-uploads-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  let started: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    started = await startServerProcess({ databaseUrl: pg.url, dataDir, built: true });
    const { port, child: server, stop } = started;
    await migrate(sql);
    const keys: string[] = [];
    for (let i = 0; i <= ACCOUNTS; i++) {
      const [account] = await sql<{ id: number }[]>`INSERT INTO accounts (name) VALUES (${`Service ${i}`}) RETURNING id`;
      const key = generateApiKey();
      await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
      await sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (${account!.id}, 'REV', 'OE-3')`;
      keys.push(key.plain);
    }
    const otherKey = keys.pop()!;
    const base = `http://127.0.0.1:${port}`;
    const file = largestCsv(config.GATEWAY_IMPORT_MAX_ROWS, config.GATEWAY_MAX_BODY_BYTES);
    console.log(
      `${UPLOADS} uploads at once of a ${(file.length / 2 ** 20).toFixed(1)} MB csv (${config.GATEWAY_IMPORT_MAX_ROWS} rows) from ${ACCOUNTS} accounts; ` +
        `files waiting or staging: ${config.GATEWAY_IMPORT_UPLOADS_MAX} in all, ${config.GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT} per account; pool ${config.GATEWAY_DB_POOL}; idle RSS ${rssMb(server.pid!, 'VmRSS').toFixed(0)} MB`,
    );
    const ratios: number[] = [];
    for (let storm = 1; storm <= STORMS; storm++) {
      if (STORMS > 1) console.log(`storm ${storm} of ${STORMS}:`);
      const result = await uploadStorm({ base, pid: server.pid!, keys, otherKey, file, uploads: UPLOADS, quietCalls: 200 });
      for (const line of describeOutcomes(result.uploads)) console.log(`  ${line}`);
      const { quiet, loaded, whileSent, whileStaging } = result;
      const figures = (l: Latencies) => `p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, max ${l.max.toFixed(0)} ms (${l.n} calls)`;
      ratios.push(loaded.p95 / quiet.p95);
      console.log(
        `other account's list call: quiet p50 ${quiet.p50.toFixed(1)} ms, p95 ${quiet.p95.toFixed(1)} ms (${quiet.n} calls) | ` +
          `during the uploads ${figures(loaded)}, ${result.otherFailures} failed | p95 ratio ${(loaded.p95 / quiet.p95).toFixed(2)} (target ≤ 2)`,
      );
      console.log(
        `  while the files arrived ${figures(whileSent)}, p95 ratio ${(whileSent.p95 / quiet.p95).toFixed(2)} | ` +
          `while the admitted staged ${figures(whileStaging)}, p95 ratio ${(whileStaging.p95 / quiet.p95).toFixed(2)}`,
      );
      console.log(`server peak RSS ${result.peakRssMb.toFixed(0)} MB; 2 s after the storm ${result.rssAfterMb.toFixed(0)} MB`);
    }
    if (STORMS > 1) {
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(`p95 ratio over ${STORMS} storms: ${sorted.map((r) => r.toFixed(2)).join(', ')}; median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} (target ≤ 2)`);
    }
    const stopAt = performance.now();
    await stop();
    console.log(`SIGTERM → exit in ${((performance.now() - stopAt) / 1000).toFixed(1)} s`);
  } finally {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
