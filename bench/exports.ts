// npm run bench:exports — five parallel downloads of each export over HTTP against a server
// process: GET /v1/audit/export of 100,000 submissions, and GET /v1/import/{id}/export-failed
// of a 100,000-row batch whose rows are all left out (csv, and xlsx). Prints for each the
// server's peak RSS (VmHWM, reset before each), the time to the first byte and to the end,
// and the bytes. BENCH_ROWS changes the size; BENCH_FORMATS=csv skips the xlsx (older code).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { generateApiKey } from '../src/crypto/hash';
import { rssMb } from '../tests/helpers/upload-storm';
import { startServerProcess } from './server';
import { waitUntil } from './wait';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const PARALLEL = 5;
const FORMATS = (process.env.BENCH_FORMATS ?? 'csv,xlsx').split(',');
const MB = 1024 * 1024;

const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** A workshop csv whose every row needs a mapping (an unknown operation code), so every row is exported. */
function failedCsv(): Buffer {
  const lines = ['Serie șasiu (VIN);Nr. înmatriculare;Data prestației;Km ieșire;Cod operație;Denumire operație'];
  for (let i = 0; i < ROWS; i++) {
    lines.push(
      `WDB${String(i).padStart(8, '0')}A${String(i % 100_000).padStart(5, '0')};B-${100 + (i % 900)}-ABC;${String(1 + (i % 28)).padStart(2, '0')}.03.2025;${150_000 + i};NECUNOSCUT;"Schimb ulei; =1+1 înlocuire filtru"`,
    );
  }
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

async function download(url: string, key: string) {
  const started = performance.now();
  const res = await fetch(url, { headers: { 'X-API-Key': key } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  let first = 0;
  let bytes = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (bytes === 0) first = performance.now() - started;
    bytes += chunk.value.length;
  }
  return { firstMs: first, totalMs: performance.now() - started, bytes };
}

async function main() {
  preserveExitCode();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-exports-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  await migrate(sql);
  const key = generateApiKey();
  await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (1, ${key.hash}, ${key.prefix})`;
  await sql`
    INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, motiv, registry_id, sent_at)
    SELECT 1, 'sent', jsonb_build_object('odometruFinal', (150000 + i)::text), 'WDB' || lpad(i::text, 14, '0'), 'B-' || (100 + i % 900) || '-ABC',
      '2025-03-' || lpad((1 + i % 28)::text, 2, '0'), 'bench-' || i, '[{"cod_prestatie":"OE-3"}]'::jsonb, 'Motiv; =1+1', (1000000 + i)::text, now()
    FROM generate_series(1, ${ROWS}) AS i`;
  // The odometers above are text, so the batch below finds no readings among these rows: an
  // upload's lookup of 100,000 VINs against 100,000 readings takes minutes (src/services/import/readings.ts).

  // Five downloads of one account at once: past its cost budget (docs/abuse-limits.md), which this does not measure.
  const unbudgeted = { GATEWAY_COSTLY_PER_ACCOUNT: '1000', GATEWAY_COSTLY_MAX: '1000', GATEWAY_COSTLY_SHARE_PCT: '100', GATEWAY_COSTLY_BURST_MS: '3600000' };
  const { port, child: server, stop } = await startServerProcess({ databaseUrl: pg.url, dataDir, env: unbudgeted });
  const pid = server.pid!;
  try {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(failedCsv())]), 'prestatii.csv');
    const uploaded = await fetch(`http://127.0.0.1:${port}/v1/import`, { method: 'POST', body: form, headers: { 'X-API-Key': key.plain } });
    const batch = (await uploaded.json()) as { batch_id: number };
    if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(batch)}`);
    const base = `http://127.0.0.1:${port}/v1`;
    // A stager stages it after the upload's answer.
    const state = () => fetch(`${base}/import/${batch.batch_id}`, { headers: { 'X-API-Key': key.plain } }).then((r) => r.json() as Promise<{ status: string }>);
    await waitUntil(async () => !['queued', 'staging'].includes((await state()).status), 300_000, 'the batch staged', 200);
    // The first export of the batch derives its rows (as a preview would): done once before measuring.
    await download(`${base}/import/${batch.batch_id}/export-failed`, key.plain);

    console.log(`${ROWS} rows, ${PARALLEL} parallel downloads each; server pid ${pid}, RSS before ${rssMb(pid, 'VmRSS').toFixed(0)} MB`);
    const runs: Array<[string, string]> = [['audit export csv', `${base}/audit/export?status=all`]];
    for (const format of FORMATS) runs.push([`export-failed ${format}`, `${base}/import/${batch.batch_id}/export-failed?format=${format}`]);
    for (const [label, url] of runs) {
      const before = rssMb(pid, 'VmRSS');
      resetPeak(pid);
      const results = await Promise.all(Array.from({ length: PARALLEL }, () => download(url, key.plain)));
      const peak = rssMb(pid, 'VmHWM');
      const worst = (f: (r: (typeof results)[number]) => number) => Math.max(...results.map(f));
      console.log(
        `${label.padEnd(20)} | RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB | first byte ≤ ${(worst((r) => r.firstMs) / 1000).toFixed(2)} s, ` +
          `all done ≤ ${(worst((r) => r.totalMs) / 1000).toFixed(2)} s | ${(results[0]!.bytes / MB).toFixed(1)} MB each`,
      );
    }
  } finally {
    await stop();
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
