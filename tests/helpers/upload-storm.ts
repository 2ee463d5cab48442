import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { csvFile, HEADER } from './import-files';

// Many uploads of one large file at once to a running server, while another account lists its
// submissions: what each upload answered, how the other account's calls fared against the
// same calls on the quiet server, and the server's memory. Shared by the test that holds the
// gateway to it (tests/integration/import-storm-process.test.ts) and bench/uploads.ts.

/** A csv of `rows` rows filling (close to) `bytes`: the largest file an upload may carry. */
export function largestCsv(rows: number, bytes: number): Buffer {
  const base = csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => rowOf(i, ''))]);
  // The multipart envelope takes a few hundred bytes of the body's limit.
  const spare = Math.floor((bytes - 1024 - base.length) / rows);
  if (spare <= 0) return base;
  const pad = 'x'.repeat(spare);
  return csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => rowOf(i, pad))]);
}

function rowOf(i: number, pad: string) {
  return [`WDB1234561A${String(100_000 + (i % 900_000)).padStart(6, '0')}`, 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', `Revizie periodică ${pad}`];
}

/** Peak (VmHWM) or current (VmRSS) resident memory of a process, in MB. */
export function rssMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024;
}

export interface UploadOutcome {
  status: number;
  /** `queued` for a 201; the catalog code otherwise. */
  answer: string;
  retryAfter: string | null;
  ms: number;
  batchId: number | null;
  /** The batch's status once a stager staged it (null for a refused upload). */
  finalStatus: string | null;
}

export interface StormResult {
  uploads: UploadOutcome[];
  quiet: Latencies;
  loaded: Latencies;
  /** Of the calls during the storm: those started before every upload was answered (the files still arriving), and those after (the admitted ones staging). */
  whileSent: Latencies;
  whileStaging: Latencies;
  /** The other account's calls that failed (not 200) during the storm. */
  otherFailures: number;
  peakRssMb: number;
  rssAfterMb: number;
}

export interface Latencies {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

export function latencies(ms: number[]): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The other account is another workshop's client: its calls run on their own thread, so what
// they measure is the server, not this process's event loop, busy sending twenty 15 MB bodies.
const OTHER_CLIENT = `
const { parentPort, workerData: { base, key } } = require('node:worker_threads');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const PAUSE_MS = 20;
async function timedList() {
  const started = performance.now();
  const res = await fetch(base + '/v1/prezentari?limit=20', { headers: { 'X-API-Key': key } });
  await res.arrayBuffer();
  return { ms: performance.now() - started, at: performance.timeOrigin + started, ok: res.status === 200 };
}
let looping = false;
parentPort.on('message', async (order) => {
  if (order === 'stop') return void (looping = false);
  const ms = [];
  let failures = 0;
  // When each call started, in ms since the epoch (the storm splits the calls by it).
  const at = [];
  const record = (call) => {
    ms.push(call.ms);
    at.push(call.at);
    if (!call.ok) failures += 1;
  };
  // Calls in a row, then paced as in the loop: how the same client's call fares on the quiet server.
  if (order.warmUp !== undefined) for (let i = 0; i < order.warmUp; i++) await timedList();
  if (order.calls !== undefined) for (let i = 0; i < order.calls; i++, await sleep(PAUSE_MS)) record(await timedList());
  else for (looping = true; looping; await sleep(PAUSE_MS)) record(await timedList());
  parentPort.postMessage({ ms, at, failures });
});`;

/** The other account's calls: how long each took, when each started (ms since the epoch), how many failed. */
interface Calls {
  ms: number[];
  at: number[];
  failures: number;
}

/**
 * The other account's client: `quiet(calls)` makes `calls` list calls 20 ms apart, after as many
 * in a row that are not counted (the server's code warmed up); `loop()` makes them 20 ms apart
 * until its `stop()`. The quiet value is the same client at the same pace: the baseline used to
 * be calls in a row, which keep client, server and database hot in the caches; its p50 was half
 * that of the same calls 20 ms apart on the same quiet server (1.3 against 2.5 ms), and its p95
 * swung between storms (2.9–5.1 ms, against 4.0–4.7 paced).
 */
function otherClient(base: string, key: string) {
  const thread = new Worker(OTHER_CLIENT, { eval: true, workerData: { base, key } });
  const answer = () => new Promise<Calls>((resolve) => thread.once('message', resolve));
  return {
    quiet(calls: number) {
      thread.postMessage({ warmUp: calls, calls });
      return answer();
    },
    loop() {
      thread.postMessage({});
      const done = answer();
      return {
        stop() {
          thread.postMessage('stop');
          return done;
        },
      };
    },
    close: () => thread.terminate(),
  };
}

/**
 * One upload, sent with node:http as three writes (the multipart head, the file, its tail): the
 * twenty files are 300 MB, and FormData copied each whole, so this process (on the same two
 * cores as the server) spent a core of its own sending them, measured as if it were the server's.
 */
function uploadOnce(base: string, key: string, file: Buffer, name: string): Promise<Omit<UploadOutcome, 'finalStatus'>> {
  const boundary = `storm${name.replace(/\W/g, '')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL('/v1/import', base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'X-API-Key': key,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': head.length + file.length + tail.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let body: { status?: string; cod?: string; batch_id?: number };
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch (error) {
            return reject(error);
          }
          const retryAfter = res.headers['retry-after'];
          resolve({
            status,
            answer: status === 201 ? String(body.status) : String(body.cod),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            ms: performance.now() - started,
            batchId: body.batch_id ?? null,
          });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    req.write(file);
    req.end(tail);
  });
}

/** Polls an admitted batch until it is no longer `queued` or `staging`. */
async function settledStatus(base: string, key: string, batchId: number, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await fetch(`${base}/v1/import/${batchId}`, { headers: { 'X-API-Key': key } });
    const body = (await res.json()) as { status: string };
    if (body.status !== 'staging' && body.status !== 'queued') return body.status;
    await sleep(250);
  }
  return 'staging';
}

/**
 * `uploads` uploads of `file` at once, spread over `keys` in turn, and the other account's list
 * call in a loop until every admitted upload has stopped staging; before it, as many list
 * calls on the quiet server (`quietCalls`) for the baseline.
 */
export async function uploadStorm(options: {
  base: string;
  pid: number;
  keys: string[];
  otherKey: string;
  file: Buffer;
  uploads: number;
  quietCalls?: number;
  settleTimeoutMs?: number;
}): Promise<StormResult> {
  const { base, pid, keys, otherKey, file } = options;
  const other = otherClient(base, otherKey);
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  let loop: { stop(): Promise<Calls> } | null = null;
  try {
    const quiet = await other.quiet(options.quietCalls ?? 100);
    peak = rssMb(pid, 'VmRSS');
    sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid, 'VmRSS'));
    }, 50);
    loop = other.loop();
    const answered = await Promise.all(Array.from({ length: options.uploads }, (_, i) => uploadOnce(base, keys[i % keys.length]!, file, `export-${i}.csv`)));
    const allAnswered = performance.timeOrigin + performance.now();
    const uploads = await Promise.all(
      answered.map(async (u, i) => ({
        ...u,
        finalStatus: u.batchId === null ? null : await settledStatus(base, keys[i % keys.length]!, u.batchId, options.settleTimeoutMs ?? 120_000),
      })),
    );
    const loaded = await loop.stop();
    loop = null;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid, 'VmHWM'));
    await sleep(2_000);
    const sent = loaded.ms.filter((_, i) => loaded.at[i]! < allAnswered);
    const staging = loaded.ms.filter((_, i) => loaded.at[i]! >= allAnswered);
    return {
      uploads,
      quiet: latencies(quiet.ms),
      loaded: latencies(loaded.ms),
      whileSent: latencies(sent),
      whileStaging: latencies(staging),
      otherFailures: loaded.failures,
      peakRssMb: peak,
      rssAfterMb: rssMb(pid, 'VmRSS'),
    };
  } finally {
    clearInterval(sampler);
    await loop?.stop();
    await other.close();
  }
}

/** One line per kind of answer: `12 × 429 IMPORT_PREA_MULTE_INCARCARI (Retry-After 10) in ≤ 35 ms`. */
export function describeOutcomes(uploads: UploadOutcome[]): string[] {
  const groups = new Map<string, UploadOutcome[]>();
  for (const u of uploads) {
    const label = `${u.status} ${u.answer}${u.retryAfter ? ` (Retry-After ${u.retryAfter})` : ''}${u.finalStatus ? ` → ${u.finalStatus}` : ''}`;
    groups.set(label, [...(groups.get(label) ?? []), u]);
  }
  return [...groups].map(([label, list]) => `${list.length} × ${label}, answered in ≤ ${Math.round(Math.max(...list.map((u) => u.ms)))} ms`);
}
