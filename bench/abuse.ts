// npm run bench:abuse — one account's costly requests against another account's plain reads
// (issue 32), on the built server (`dist/main.js`, default limits unless set in the
// environment; the per-key limit at its default, 6,000 a minute, unless BENCH_KEY_LIMIT says
// otherwise). While account B lists its submissions every 20 ms (GET /v1/prezentari?limit=20),
// account A replays, one after the other, for BENCH_ATTACK_S (12) seconds each:
//   1. 5 clients posting dry runs with a 14 MB body (a 10 MiB image) back to back,
//   2. 5 clients listing with limit=500,
//   3. 5 clients exporting its 100,000 submissions (GET /v1/audit/export?status=all),
//   4. 5 clients searching `%%%` and `___` in the dashboard's list (signed in).
// The attackers send the next request as soon as the last one answered, whatever it answered
// (a client that honours Retry-After does less; BENCH_HONOUR_RETRY=1 makes them wait it).
// For each attack it prints B's p50/p95 on the quiet server (measured just before, same pace)
// and during the attack, their ratio (issue 32's target: p95 ≤ 2 × quiet), what A's requests
// answered (counts by status and code, and their slowest), and the server's peak RSS.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { createDb } from '../db/client';
import { generateApiKey } from '../src/crypto/hash';
import { createUser } from '../src/services/users/users';
import { rssMb } from '../tests/helpers/upload-storm';
import { startServerProcess } from './server';

const ATTACK_S = Number(process.env.BENCH_ATTACK_S ?? 12);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const QUIET_CALLS = Number(process.env.BENCH_QUIET_CALLS ?? 150);
const HONOUR_RETRY = process.env.BENCH_HONOUR_RETRY === '1';
const IMAGE_BYTES = 10 * 1024 * 1024;
const PASSWORD = 'parola-de-bench-lunga';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Latencies {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

function latencies(ms: number[]): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0 };
}

// Account B's client runs on a thread of its own, so that what it measures is the server, not
// this process's event loop sending 14 MB bodies.
const OTHER_CLIENT = `
const { parentPort, workerData: { base, key } } = require('node:worker_threads');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function timedList() {
  const started = performance.now();
  const res = await fetch(base + '/v1/prezentari?limit=20', { headers: { 'X-API-Key': key } });
  await res.arrayBuffer();
  return { ms: performance.now() - started, ok: res.status === 200 };
}
let looping = false;
parentPort.on('message', async (order) => {
  if (order === 'stop') return void (looping = false);
  const ms = [];
  let failures = 0;
  const record = (call) => { ms.push(call.ms); if (!call.ok) failures += 1; };
  if (order.warmUp) for (let i = 0; i < order.warmUp; i++) await timedList();
  if (order.calls !== undefined) for (let i = 0; i < order.calls; i++, await sleep(20)) record(await timedList());
  else for (looping = true; looping; await sleep(20)) record(await timedList());
  parentPort.postMessage({ ms, failures });
});`;

function otherClient(base: string, key: string) {
  const thread = new Worker(OTHER_CLIENT, { eval: true, workerData: { base, key } });
  const answer = () => new Promise<{ ms: number[]; failures: number }>((resolve) => thread.once('message', resolve));
  return {
    quiet(calls: number, warmUp: number) {
      thread.postMessage({ calls, warmUp });
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

interface Answer {
  status: number;
  cod: string | null;
  retryAfter: number | null;
  ms: number;
}

/** One request on a kept-alive socket; the answer read whole (an export to its last byte) and dropped. */
function send(agent: Agent, base: URL, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: base.hostname, port: base.port, path, method, headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers }, (res) => {
      const status = res.statusCode ?? 0;
      const head: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < 4096) {
          head.push(chunk);
          kept += chunk.length;
        }
      });
      res.on('error', reject);
      res.on('end', () => {
        let cod: string | null = null;
        if (status >= 400)
          cod =
            /"cod":"([A-Z_]+)"/.exec(Buffer.concat(head).toString('utf8'))?.[1] ??
            (/CONT_PREA_MULTE_OPERATII|SERVER_OCUPAT_OPERATII/.exec(Buffer.concat(head).toString('utf8'))?.[0] || null);
        const retry = res.headers['retry-after'];
        resolve({ status, cod, retryAfter: typeof retry === 'string' ? Number(retry) : null, ms: performance.now() - started });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Attack {
  name: string;
  /** One request of client `i`. */
  once(agent: Agent, i: number): Promise<Answer>;
}

/** `CLIENTS` clients sending `attack`'s request back to back until `untilMs` (performance.now). */
async function runAttack(attack: Attack, untilMs: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (performance.now() < untilMs) {
          const a = await attack.once(agent, i).catch((): Answer => ({ status: 0, cod: 'connection', retryAfter: null, ms: 0 }));
          answers.push(a);
          if (HONOUR_RETRY && a.retryAfter) await sleep(Math.min(a.retryAfter * 1000, untilMs - performance.now()));
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return answers;
}

function describeAnswers(answers: Answer[]): string {
  const groups = new Map<string, Answer[]>();
  for (const a of answers) {
    const label = `${a.status}${a.cod ? ` ${a.cod}` : ''}`;
    groups.set(label, [...(groups.get(label) ?? []), a]);
  }
  return [...groups]
    .sort((x, y) => y[1].length - x[1].length)
    .map(([label, list]) => {
      const l = latencies(list.map((a) => a.ms));
      return `${list.length} × ${label} (p50 ${l.p50.toFixed(0)} ms, max ${l.max.toFixed(0)} ms)`;
    })
    .join('; ');
}

async function main() {
  preserveExitCode();
  process.env.BENCH_KEY_LIMIT ??= '6000';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-abuse-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  const db = createDb(pg.url, { max: 1 });
  let started: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    await migrate(sql);
    const keys: string[] = [];
    const ids: number[] = [];
    // Each attack is another attacking account's (with a key of its own): what one attack spent of
    // its account's budget, or of its key's minute, does not carry into the next.
    for (const name of ['A: corpuri mari', 'A: pagini mari', 'A: exporturi', 'A: căutări', 'Atelierul B']) {
      const [account] = await sql<{ id: number }[]>`INSERT INTO accounts (name) VALUES (${name}) RETURNING id`;
      const key = generateApiKey();
      await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
      keys.push(key.plain);
      ids.push(account!.id);
    }
    const [keyDry, keyList, keyExport, , keyB] = keys as [string, string, string, string, string];
    const [, idList, idExport, idSearch, idB] = ids as [number, number, number, number, number];
    console.log(`seeding ${ROWS} submissions for each of A's exporting and searching accounts, 1,000 for the listing one, 200 for B…`);
    const seedRows = (accountId: number, rows: number, tag: string) => sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, motiv, created_at, updated_at, sent_at)
      SELECT ${accountId}, CASE WHEN i % 500 = 0 THEN 'needs_data' ELSE 'sent' END, jsonb_build_object('odometruFinal', 150000 + i),
        'WDB' || lpad(i::text, 14, '0'), 'B' || lpad((i % 100000)::text, 6, '0') || 'X',
        '2025-' || lpad((1 + i % 12)::text, 2, '0') || '-' || lpad((1 + i % 28)::text, 2, '0'), ${tag} || i,
        '[{"cod_prestatie":"OE-3","denumire":"REVIZIE","cod_client":"OE-3","sursa":"nomenclator"}]'::jsonb, '[]'::jsonb, NULL,
        now() - (${rows} - i) * interval '1 minute', now(), now()
      FROM generate_series(1, ${rows}) AS i`;
    await seedRows(idList, 1_000, 'l-');
    await seedRows(idExport, ROWS, 'e-');
    await seedRows(idSearch, ROWS, 's-');
    await seedRows(idB, 200, 'b-');
    await sql`VACUUM ANALYZE submissions`;
    await createUser(db.db, { accountId: idSearch, email: 'atacator@service.ro', password: PASSWORD, admin: false, scryptN: 1024 });

    started = await startServerProcess({ databaseUrl: pg.url, dataDir, built: true });
    const { port, child: server, stop } = started;
    const origin = `http://127.0.0.1:${port}`;
    const base = new URL(origin);
    const cookie = await signIn(origin);

    const image = randomBytes(IMAGE_BYTES).toString('base64');
    const dryRun = Buffer.from(
      JSON.stringify({ vin: 'WDB1234561A100001', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 100_001, prestatii: [{ cod_prestatie: 'OE-3' }], b64Image: image }),
    );
    const attacks: Attack[] = [
      {
        name: `${CLIENTS} × dry run with a ${(dryRun.length / 2 ** 20).toFixed(1)} MB body (10 MiB image)`,
        once: (agent) => send(agent, base, 'POST', '/v1/prezentari/valideaza', { 'X-API-Key': keyDry, 'Content-Type': 'application/json' }, dryRun),
      },
      { name: `${CLIENTS} × list with limit=500`, once: (agent) => send(agent, base, 'GET', '/v1/prezentari?limit=500', { 'X-API-Key': keyList }) },
      { name: `${CLIENTS} × audit export of ${ROWS} rows`, once: (agent) => send(agent, base, 'GET', '/v1/audit/export?status=all', { 'X-API-Key': keyExport }) },
      {
        name: `${CLIENTS} × dashboard search %%% / ___`,
        once: (agent, i) =>
          send(agent, base, 'GET', `/_fragments/coada?vedere=toate&cauta=${i % 2 === 0 ? '%25%25%25' : '___'}`, {
            Cookie: cookie,
            'HX-Request': 'true',
            Host: `127.0.0.1:${port}`,
          }),
      },
    ];

    const other = otherClient(origin, keyB);
    const pid = server.pid!;
    console.log(
      `server idle RSS ${rssMb(pid, 'VmRSS').toFixed(0)} MB; ${CLIENTS} attacking clients, ${ATTACK_S} s per attack, Retry-After ${HONOUR_RETRY ? 'honoured' : 'ignored'}; per-key limit ${process.env.BENCH_KEY_LIMIT}/min`,
    );
    let warmUp = QUIET_CALLS;
    const rows: string[] = [];
    try {
      for (const attack of attacks) {
        const quiet = latencies((await other.quiet(QUIET_CALLS, warmUp)).ms);
        warmUp = 20;
        let peak = rssMb(pid, 'VmRSS');
        const sampler = setInterval(() => {
          peak = Math.max(peak, rssMb(pid, 'VmRSS'));
        }, 50);
        const loop = other.loop();
        const answers = await runAttack(attack, performance.now() + ATTACK_S * 1000);
        const during = await loop.stop();
        clearInterval(sampler);
        const loaded = latencies(during.ms);
        const ratio = loaded.p95 / quiet.p95;
        console.log(`\n${attack.name}`);
        console.log(
          `  B: quiet p50 ${quiet.p50.toFixed(1)} / p95 ${quiet.p95.toFixed(1)} ms; during p50 ${loaded.p50.toFixed(1)} / p95 ${loaded.p95.toFixed(1)} ms (max ${loaded.max.toFixed(0)} ms, ${loaded.n} calls, ${during.failures} failed); p95 ratio ${ratio.toFixed(2)} (target ≤ 2)`,
        );
        console.log(`  A: ${answers.length} requests: ${describeAnswers(answers)}`);
        console.log(`  server peak RSS during the attack ${peak.toFixed(0)} MB`);
        rows.push(
          `| ${attack.name} | ${quiet.p50.toFixed(1)} / ${quiet.p95.toFixed(1)} | ${loaded.p50.toFixed(1)} / ${loaded.p95.toFixed(1)} | ${ratio.toFixed(2)} | ${peak.toFixed(0)} |`,
        );
        // Whatever A still has in flight ends before the next quiet measurement.
        await sleep(1_000);
      }
    } finally {
      await other.close();
    }
    console.log('\n| attack | B quiet p50 / p95 ms | B during p50 / p95 ms | p95 ratio | peak RSS MB |\n| --- | --- | --- | --- | --- |');
    for (const row of rows) console.log(row);
    console.log(`\nserver peak RSS (VmHWM) over the run ${rssMb(pid, 'VmHWM').toFixed(0)} MB`);
    await stop();
  } finally {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    await db.close();
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A's clerk signed in to the dashboard: the session cookie. */
async function signIn(origin: string): Promise<string> {
  // The server answers 503 while it starts (its warm-up after the migrations).
  let form = await fetch(`${origin}/login`);
  for (let i = 0; form.status === 503 && i < 300; i++) {
    await sleep(100);
    form = await fetch(`${origin}/login`);
  }
  const loginCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const login = await fetch(`${origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: origin, Cookie: loginCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: 'atacator@service.ro', parola: PASSWORD }).toString(),
  });
  const session = login.headers.getSetCookie().find((c) => c.startsWith('gw_sesiune='));
  if (!session) throw new Error(`sign-in failed: ${login.status}`);
  return session.split(';')[0]!;
}

await main();
