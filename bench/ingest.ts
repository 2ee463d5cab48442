// npm run bench:ingest — (a) raw single-row inserts of the same submission row with postgres.js
// at concurrency 32, against (b) POST /v1/prezentari over HTTP at concurrency 32 with distinct
// contents, on the same database in one run. Prints both rates and the ratio b/a.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { createBenchClient } from './http-client';
import { startServerProcess } from './server';
import { migrate } from '../db/migrate';
import { canonicalize } from '../src/domain/canonical';
import { generateApiKey } from '../src/crypto/hash';

const CONCURRENCY = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 16);

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** The HTTP client: `http` (lean, kept-alive node:http, the default) or `fetch` (undici, the client until 2026-11-24). */
const CLIENT = process.env.BENCH_CLIENT === 'fetch' ? 'fetch' : 'http';

/**
 * Runs `once` at concurrency 32 for one round and counts completions. The two phases
 * alternate round by round, so both meet the same disk (commit latency drifts on a VM).
 */
async function round(once: (i: number) => Promise<void>, start: number): Promise<{ n: number; seconds: number }> {
  let next = start;
  const began = performance.now();
  const deadline = began + (SECONDS / ROUNDS) * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) await once(next++);
    }),
  );
  return { n: next - start, seconds: (performance.now() - began) / 1000 };
}

function payload(i: number) {
  return {
    vin: 'WDB1234561A654321',
    nrInm: 'B123ABC',
    dataPrestatie: '2025-03-14',
    odometruFinal: 100_000 + i,
    prestatii: [{ cod_prestatie: 'OE-3' }, { cod_op_service: 'REV', denumire: 'Revizie' }],
  };
}

async function main() {
  preserveExitCode();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: CONCURRENCY, onnotice: () => {} });
  await migrate(sql);
  const key = generateApiKey();
  await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (1, ${key.hash}, ${key.prefix})`;
  await sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (1, 'REV', 'OE-3')`;

  const { port, stop } = await startServerProcess({
    databaseUrl: pg.url,
    dataDir,
  });
  const client = createBenchClient(`http://127.0.0.1:${port}`, CONCURRENCY);
  try {
    const row = canonicalize(payload(0));
    const raw = async () => {
      await sql`INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie, prestatii, erori, nemapate)
        VALUES (1, 'queued', ${JSON.stringify(row)}::jsonb, ${randomBytes(16).toString('hex')}, ${row.vin}, ${row.nrInm}, ${row.dataPrestatie}, '[]'::jsonb, '[]'::jsonb, '[]'::jsonb)`;
    };
    const offset = 1_000_000;
    let failures = 0;
    const post = async (i: number) => {
      const res =
        CLIENT === 'fetch'
          ? await fetch(`http://127.0.0.1:${port}/v1/prezentari`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': key.plain },
              body: JSON.stringify(payload(offset + i)),
            }).then(async (r) => ({ status: r.status, body: await r.json() }))
          : await client.postJson('/v1/prezentari', { 'X-API-Key': key.plain }, payload(offset + i));
      const body = res.body as { status?: string; duplicate?: boolean };
      if (res.status !== 200 || body.status !== 'queued' || body.duplicate) failures++;
    };
    const totals = { a: { n: 0, seconds: 0 }, b: { n: 0, seconds: 0 } };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [phase, once] of [
        ['a', raw],
        ['b', post],
      ] as const) {
        const result = await round(once, totals[phase].n);
        totals[phase].n += result.n;
        totals[phase].seconds += result.seconds;
        console.log(`round ${r + 1} (${phase})  ${(result.n / result.seconds).toFixed(0).padStart(6)} /s`);
      }
    }
    const rateA = totals.a.n / totals.a.seconds;
    const rateB = totals.b.n / totals.b.seconds;
    console.log(`(a) raw INSERT, same row, postgres.js, c=${CONCURRENCY}: ${totals.a.n} in ${totals.a.seconds.toFixed(1)} s → ${rateA.toFixed(0)} /s`);
    console.log(`(b) POST /v1/prezentari over HTTP (${CLIENT}), c=${CONCURRENCY}: ${totals.b.n} in ${totals.b.seconds.toFixed(1)} s → ${rateB.toFixed(0)} /s`);
    const [{ n }] = (await sql`SELECT count(*)::int AS n FROM submissions WHERE (payload_json->>'odometruFinal')::int >= ${100_000 + offset}`) as unknown as [{ n: number }];
    console.log(`HTTP answers not 'queued' and new: ${failures}; rows stored by HTTP: ${n} (answers: ${totals.b.n})`);
    console.log(`ratio b/a = ${(rateB / rateA).toFixed(2)}   (target ≥ 0.8)`);
  } finally {
    client.close();
    await stop();
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
