// npm run bench:abuse — issue 32's attacks, each replayed against the built server (`dist/main.js`,
// default limits unless set in the environment; the per-key limit at its default, 6,000 a
// minute, unless BENCH_KEY_LIMIT says otherwise) while account B lists its submissions every
// 20 ms (GET /v1/prezentari?limit=20, on a thread of its own). Each attack is another attacking
// account's; for each, B is measured in alternating windows, quiet then attacked, BENCH_ROUNDS
// (2) times BENCH_ATTACK_S (8) seconds each, so that a drift of the machine (other work on it)
// falls on both sides. Printed per attack: B's p50/p95 quiet and attacked (pooled over the
// rounds), their p95 ratio (the issue's target: ≤ 2), B's failed calls, when its calls over
// twice its quiet p95 started (by half-second of each attacked window), the attackers' answers
// (counts by status and code, and their slowest), the server's peak RSS during the attack, and
// the CPU spent in the attacked windows by this process (the attackers, on the same cores as
// the server: a real attacker's client is elsewhere), the server, PostgreSQL and the rest.
//   1. a csv of one 15 MB field without a newline, uploaded back to back by 5 clients;
//   2. a shared-string xlsx bomb (40 MB string), a 20 MiB header cell, and the reads of a batch
//      at the bounds (preview of 1,000 rows, the batch, its screen), 5 clients;
//   3. 1,050 connections from one other address (127.0.0.2) sending a POST /login body one byte
//      every 2 s, half of them dripping their headers instead;
//   4. 15 MiB multipart bodies to POST /v1/prezentari/valideaza, and dashboard uploads of
//      15 MiB without their CSRF token, 5 clients;
//   5. dry runs with a 14 MB body (10 MiB image), lists with limit=500, the audit export of
//      100,000 rows, dashboard searches `%%%` / `___`, 5 clients each;
//   6. 100,000 records of an account without registry credentials queued for the worker.
// Attackers send the next request as soon as the last one answered (BENCH_HONOUR_RETRY=1: they
// wait Retry-After first). BENCH_ATTACKS=4,5a runs only those; BENCH_NODE_ARGS are the server's (--cpu-prof).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { createDb } from '../db/client';
import { generateApiKey } from '../src/crypto/hash';
import { createUser } from '../src/services/users/users';
import { workbookParts, zipFile } from '../tests/helpers/import-files';
import { latencies, rssMb } from '../tests/helpers/upload-storm';
import { cpuSeconds, machineBusySeconds, postgresCpuByPid } from './cpu';
import { multipart } from './http-client';
import { startServerProcess } from './server';

const ATTACK_S = Number(process.env.BENCH_ATTACK_S ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const HONOUR_RETRY = process.env.BENCH_HONOUR_RETRY === '1';
/** BENCH_ATTACKS=1,4,5a: only these attacks (by the number their name starts with). */
const ONLY = process.env.BENCH_ATTACKS?.split(',').map((a) => a.trim());
const IMAGE_BYTES = 10 * 1024 * 1024;
const PASSWORD = 'parola-de-bench-lunga';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Account B's client runs on a thread of its own, so that what it measures is the server, not
// this process's event loop sending 14 MB bodies.
const OTHER_CLIENT = `
const { parentPort, workerData: { base, key } } = require('node:worker_threads');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function timedList() {
  const started = performance.now();
  try {
    const res = await fetch(base + '/v1/prezentari?limit=20', { headers: { 'X-API-Key': key } });
    await res.arrayBuffer();
    return { ms: performance.now() - started, ok: res.status === 200 };
  } catch {
    return { ms: performance.now() - started, ok: false };
  }
}
let looping = false;
parentPort.on('message', async (order) => {
  if (order === 'stop') return void (looping = false);
  const ms = [];
  // When each call started, in ms from the loop's start.
  const at = [];
  let failures = 0;
  looping = true;
  const started = performance.now();
  for (let i = 0; i < (order.warmUp ?? 0); i++) await timedList();
  for (; looping; await sleep(20)) {
    at.push(performance.now() - started);
    const call = await timedList();
    ms.push(call.ms);
    if (!call.ok) failures += 1;
  }
  parentPort.postMessage({ ms, at, failures });
});`;

function otherClient(base: string, key: string) {
  const thread = new Worker(OTHER_CLIENT, { eval: true, workerData: { base, key } });
  return {
    /** B lists until stop() is called; stop() gives its calls' times, when each started, and its failures. */
    loop(warmUp = 0) {
      const done = new Promise<{ ms: number[]; at: number[]; failures: number }>((resolve) => thread.once('message', resolve));
      thread.postMessage({ warmUp });
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

const quieted = new WeakSet<object>();

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
    // A refused body's socket may be closed by the server while the rest is being written: the answer has been read.
    req.on('socket', (socket) => {
      if (!quieted.has(socket)) socket.on('error', () => undefined);
      quieted.add(socket);
    });
    req.end(body);
  });
}

interface Attack {
  name: string;
  /** One request of client `i`. */
  once?(agent: Agent, i: number): Promise<Answer>;
  /** An attack that is not a loop of requests: runs until `untilMs`, returns what it met. */
  run?(untilMs: number): Promise<Answer[]>;
  /** Before the attack's first round (data it needs). */
  prepare?(): Promise<void>;
}

/** `CLIENTS` clients sending `attack`'s request back to back until `untilMs` (performance.now). */
async function runAttack(attack: Attack, untilMs: number): Promise<Answer[]> {
  if (attack.run) return attack.run(untilMs);
  const answers: Answer[] = [];
  const agents: Agent[] = [];
  // The window ends on time: a request still in flight then (an export paced to the account's share) is cut.
  const end = setTimeout(() => {
    for (const agent of agents) agent.destroy();
  }, untilMs - performance.now());
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      try {
        while (performance.now() < untilMs) {
          const a = await attack.once!(agent, i).catch((): Answer => ({ status: 0, cod: 'connection', retryAfter: null, ms: 0 }));
          answers.push(a);
          if (HONOUR_RETRY && a.retryAfter) await sleep(Math.min(a.retryAfter * 1000, untilMs - performance.now()));
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  clearTimeout(end);
  return answers;
}

function describeAnswers(answers: Answer[]): string {
  const groups = new Map<string, Answer[]>();
  for (const a of answers) {
    const label = `${a.status}${a.cod ? ` ${a.cod}` : ''}`;
    // Pushed, not copied: attack 3 meets ~120,000 answers, which copying took minutes to group.
    const group = groups.get(label);
    if (group) group.push(a);
    else groups.set(label, [a]);
  }
  return [...groups]
    .sort((x, y) => y[1].length - x[1].length)
    .map(([label, list]) => {
      const l = latencies(list.map((a) => a.ms));
      return `${list.length} × ${label} (p50 ${l.p50.toFixed(0)} ms, max ${l.max.toFixed(0)} ms)`;
    })
    .join('; ');
}

/**
 * When B's slow calls fell: `round 1: 0 s 6, 0.5 s 3; round 2: …` (calls over `ms` that started
 * in each half-second of the attacked window). A hump at a window's start is an account's burst.
 */
function whenSlow(calls: { round: number; at: number; ms: number }[], ms: number): string {
  // Calls come in order, so each round's half-seconds do too.
  const rounds = new Map<number, Map<number, number>>();
  for (const call of calls) {
    const slots = rounds.get(call.round) ?? new Map<number, number>();
    rounds.set(call.round, slots);
    if (call.ms <= ms) continue;
    const slot = Math.floor(call.at / 500) / 2;
    slots.set(slot, (slots.get(slot) ?? 0) + 1);
  }
  return [...rounds].map(([round, slots]) => `round ${round + 1}: ${slots.size === 0 ? 'none' : [...slots].map(([s, n]) => `${s} s ${n}`).join(', ')}`).join('; ');
}

/** CPU seconds so far: this process (the attackers and B's client), the server, PostgreSQL, and the machine. */
function cpuNow(serverPid: number) {
  const own = process.cpuUsage();
  return { own: (own.user + own.system) / 1e6, server: cpuSeconds(serverPid), postgres: postgresCpuByPid(), machine: machineBusySeconds() };
}
interface CpuSpent {
  own: number;
  server: number;
  postgres: number;
  machine: number;
}
/** Per PostgreSQL process alive at the end (one that ended meanwhile falls in "the rest"). */
function cpuSpent(from: ReturnType<typeof cpuNow>, to: ReturnType<typeof cpuNow>): CpuSpent {
  let postgres = 0;
  for (const [pid, seconds] of to.postgres) postgres += seconds - (from.postgres.get(pid) ?? 0);
  return { own: to.own - from.own, server: to.server - from.server, postgres, machine: to.machine - from.machine };
}

/**
 * Slow connections from another address of the loopback (127.0.0.2): `count` sockets, each
 * sending its request a byte every `everyMs`, the body (after whole headers) or, for every
 * second one, the headers themselves. Reconnects what the server closes, until `untilMs`.
 * Answers: what each connection met (a status line read, or the server closing it: 0 closed).
 */
async function slowConnections(port: number, count: number, everyMs: number, untilMs: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  const body = 'email=a%40b.ro&parola=x'.padEnd(1_000, 'x');
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const headers = `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`;
      const dripHeaders = i % 2 === 1;
      const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
      let at = 0;
      let answered: Answer | null = null;
      let timer: NodeJS.Timeout | undefined;
      const text = dripHeaders ? headers + body : body;
      socket.on('connect', () => {
        if (!dripHeaders) socket.write(headers);
        timer = setInterval(() => {
          if (performance.now() >= untilMs || at >= text.length) return void socket.destroy();
          socket.write(text[at++]!);
        }, everyMs);
      });
      socket.on('data', (chunk: Buffer) => {
        const status = /^HTTP\/1\.1 (\d+)/.exec(chunk.toString('latin1'));
        if (status && !answered) {
          const cod = /"cod":"([A-Z_]+)"/.exec(chunk.toString('utf8'))?.[1] ?? null;
          answered = { status: Number(status[1]), cod, retryAfter: null, ms: performance.now() - started };
        }
      });
      const done = () => {
        clearInterval(timer);
        if (performance.now() < untilMs || answered) answers.push(answered ?? { status: 0, cod: 'closed by the server', retryAfter: null, ms: performance.now() - started });
        resolve();
      };
      socket.on('error', () => undefined);
      socket.on('close', done);
    });
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep(i % 100);
      while (performance.now() < untilMs) await open(i);
    }),
  );
  return answers;
}

const CELL = 32_767;

const letters = (i: number) => {
  let s = '';
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
};

/** An xlsx of `rows` rows at the bounds (one header label, the codes and the name cells of 32,767 characters, shared strings): a few KB. */
function boundsWorkbook(rows: number): Buffer {
  const codes = Array.from({ length: CELL / 2 }, (_, i) => (i % 36).toString(36))
    .join(',')
    .slice(0, CELL);
  const strings = [`VIN ${'h'.repeat(CELL - 4)}`, 'WDB1234561A100001', codes, 'ă'.repeat(CELL), 'Nr', 'Data', 'Km', 'Cod operație', 'Denumire operație'];
  const head = `<row r="1">${[0, 4, 5, 6, 7, 8].map((s, i) => `<c r="${letters(i)}1" t="s"><v>${s}</v></c>`).join('')}</row>`;
  const body = Array.from({ length: rows }, (_, i) => {
    const n = i + 2;
    return `<row r="${n}"><c r="A${n}" t="s"><v>1</v></c><c r="B${n}" t="inlineStr"><is><t>B${n}X</t></is></c><c r="C${n}"><v>45700</v></c><c r="D${n}"><v>${1000 + n}</v></c><c r="E${n}" t="s"><v>2</v></c><c r="F${n}" t="s"><v>3</v></c></row>`;
  }).join('');
  const shared = `<sst>${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;
  return zipFile([...workbookParts(Buffer.from(`<worksheet><sheetData>${head}${body}</sheetData></worksheet>`)), { name: 'xl/sharedStrings.xml', data: Buffer.from(shared) }]);
}

/** The shared-string bomb of the issue: one shared string of 40 MB, used by every cell (a ~40 KB file). */
function sharedStringBomb(): Buffer {
  const shared = Buffer.concat([Buffer.from('<sst><si><t>VIN</t></si><si><t>'), Buffer.alloc(40 * 2 ** 20, 'a'), Buffer.from('</t></si></sst>')]);
  const rows = Array.from({ length: 20 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="s"><v>1</v></c></row>`).join('');
  const sheet = Buffer.from(`<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>${rows}</sheetData></worksheet>`);
  return zipFile([...workbookParts(sheet), { name: 'xl/sharedStrings.xml', data: shared }]);
}

/** A 27 KB-ish xlsx with a header cell of 20 MiB (an inline string). */
function longHeader(): Buffer {
  const sheet = Buffer.concat([
    Buffer.from('<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>VIN</t></is></c><c r="B1" t="inlineStr"><is><t>'),
    Buffer.alloc(20 * 2 ** 20, 'H'),
    Buffer.from('</t></is></c></row></sheetData></worksheet>'),
  ]);
  return zipFile(workbookParts(sheet));
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
    // Each attack is another attacking account's (with a key of its own, and a clerk where it
    // needs the dashboard): what one attack spent of its account's budget does not carry over.
    const names = ['csv', 'xlsx', 'multipart', 'dry', 'list', 'export', 'search', 'creds', 'B'] as const;
    const account = {} as Record<(typeof names)[number], { id: number; key: string; email: string }>;
    for (const name of names) {
      const [row] = await sql<{ id: number }[]>`INSERT INTO accounts (name) VALUES (${`Atelier ${name}`}) RETURNING id`;
      const key = generateApiKey();
      await sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${row!.id}, ${key.hash}, ${key.prefix})`;
      const email = `${name}@service.ro`;
      await createUser(db.db, { accountId: row!.id, email, password: PASSWORD, admin: false, scryptN: 1024 });
      account[name] = { id: row!.id, key: key.plain, email };
    }
    console.log(`seeding ${ROWS} submissions for each of the exporting and searching accounts, 1,000 for the listing one, 200 for B…`);
    const seedRows = (accountId: number, rows: number, tag: string, status = "CASE WHEN i % 500 = 0 THEN 'needs_data' ELSE 'sent' END") => sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, motiv, created_at, updated_at, sent_at)
      SELECT ${accountId}, ${sql.unsafe(status)}, jsonb_build_object('vin', 'WDB' || lpad(i::text, 14, '0'), 'nrInm', 'B123ABC', 'dataPrestatie', '2025-03-14', 'odometruFinal', 150000 + i, 'prestatii', '[{"cod_prestatie":"OE-3"}]'::jsonb),
        'WDB' || lpad(i::text, 14, '0'), 'B' || lpad((i % 100000)::text, 6, '0') || 'X',
        '2025-' || lpad((1 + i % 12)::text, 2, '0') || '-' || lpad((1 + i % 28)::text, 2, '0'), ${tag} || i,
        '[{"cod_prestatie":"OE-3","denumire":"REVIZIE","cod_client":"OE-3","sursa":"nomenclator"}]'::jsonb, '[]'::jsonb, NULL,
        now() - (${rows} - i) * interval '1 minute', now(), ${sql.unsafe(status.startsWith("'queued'") ? 'NULL' : 'now()')}
      FROM generate_series(1, ${rows}) AS i`;
    await seedRows(account.list.id, 1_000, 'l-');
    await seedRows(account.export.id, ROWS, 'e-');
    await seedRows(account.search.id, ROWS, 's-');
    await seedRows(account.B.id, 200, 'b-');
    await sql`VACUUM ANALYZE submissions`;

    started = await startServerProcess({ databaseUrl: pg.url, dataDir, built: true, worker: true });
    const { port, child: server, stop } = started;
    const origin = `http://127.0.0.1:${port}`;
    const base = new URL(origin);
    const cookies = {
      xlsx: await signIn(origin, account.xlsx.email),
      multipart: await signIn(origin, account.multipart.email),
      search: await signIn(origin, account.search.email),
    };

    const image = randomBytes(IMAGE_BYTES).toString('base64');
    const dryRun = Buffer.from(
      JSON.stringify({ vin: 'WDB1234561A100001', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 100_001, prestatii: [{ cod_prestatie: 'OE-3' }], b64Image: image }),
    );
    const csvField = multipart(Buffer.alloc(15_000_000, 'a'), 'un-camp.csv', 'text/csv');
    const bomb = multipart(sharedStringBomb(), 'bomba.xlsx', 'application/octet-stream');
    const header = multipart(longHeader(), 'antet.xlsx', 'application/octet-stream');
    const bounds = multipart(boundsWorkbook(200), 'limite.xlsx', 'application/octet-stream');
    const bigMultipart = multipart(Buffer.alloc(15 * 2 ** 20 - 400, 'x'), 'mare.csv', 'text/csv');
    const json = { 'Content-Type': 'application/json' };
    const host = { Host: `127.0.0.1:${port}` };
    let boundsBatch = 0;
    const upload = (agent: Agent, key: string, file: { body: Buffer; contentType: string }) =>
      send(agent, base, 'POST', '/v1/import', { 'X-API-Key': key, 'Content-Type': file.contentType }, file.body);

    const attacks: Attack[] = [
      {
        name: `1. ${CLIENTS} × csv upload of one 15 MB field without a newline`,
        once: (agent) => upload(agent, account.csv.key, csvField),
      },
      {
        name: `2. ${CLIENTS} × shared-string xlsx bomb (40 MB string, ${(bomb.body.length / 1024).toFixed(0)} KB), 20 MiB header cell (${(header.body.length / 1024).toFixed(0)} KB), and reads of a batch at the bounds (preview of 1,000 rows, the batch, its screen)`,
        async prepare() {
          const agent = new Agent({ keepAlive: false });
          const res = await new Promise<string>((resolve, reject) => {
            const req = request(
              {
                host: base.hostname,
                port: base.port,
                path: '/v1/import',
                method: 'POST',
                agent,
                headers: { 'X-API-Key': account.xlsx.key, 'Content-Type': bounds.contentType, 'Content-Length': String(bounds.body.length) },
              },
              (r) => {
                let text = '';
                r.on('data', (c: Buffer) => (text += c.toString('utf8')));
                r.on('end', () => resolve(text));
              },
            );
            req.on('error', reject);
            req.end(bounds.body);
          });
          boundsBatch = (JSON.parse(res) as { batch_id: number }).batch_id;
          for (let i = 0; i < 200; i++, await sleep(100)) {
            const state = await fetch(`${origin}/v1/import/${boundsBatch}`, { headers: { 'X-API-Key': account.xlsx.key } }).then((r) => r.json() as Promise<{ status: string }>);
            if (state.status !== 'staging') break;
          }
        },
        once: (agent, i) => {
          const key = account.xlsx.key;
          switch (i % 5) {
            case 0:
              return upload(agent, key, bomb);
            case 1:
              return upload(agent, key, header);
            case 2:
              return send(agent, base, 'GET', `/v1/import/${boundsBatch}/preview?page_size=1000`, { 'X-API-Key': key });
            case 3:
              return send(agent, base, 'GET', `/v1/import/${boundsBatch}`, { 'X-API-Key': key });
            default:
              return send(agent, base, 'GET', `/import/${boundsBatch}`, { Cookie: cookies.xlsx, ...host });
          }
        },
      },
      {
        name: '3. 1,050 connections from 127.0.0.2, POST /login a byte every 2 s (half the body, half the headers)',
        run: (untilMs) => slowConnections(port, 1_050, 2_000, untilMs),
      },
      {
        name: `4. ${CLIENTS} × 15 MiB multipart to POST /v1/prezentari/valideaza, and dashboard uploads of 15 MiB without the CSRF token`,
        once: (agent, i) =>
          i % 2 === 0
            ? send(agent, base, 'POST', '/v1/prezentari/valideaza', { 'X-API-Key': account.multipart.key, 'Content-Type': bigMultipart.contentType }, bigMultipart.body)
            : send(
                agent,
                base,
                'POST',
                '/_import/incarca',
                { Cookie: cookies.multipart, Origin: origin, 'HX-Request': 'true', 'Content-Type': bigMultipart.contentType, ...host },
                bigMultipart.body,
              ),
      },
      {
        name: `5a. ${CLIENTS} × dry run with a ${(dryRun.length / 2 ** 20).toFixed(1)} MB body (10 MiB image)`,
        once: (agent) => send(agent, base, 'POST', '/v1/prezentari/valideaza', { 'X-API-Key': account.dry.key, ...json }, dryRun),
      },
      { name: `5b. ${CLIENTS} × list with limit=500`, once: (agent) => send(agent, base, 'GET', '/v1/prezentari?limit=500', { 'X-API-Key': account.list.key }) },
      { name: `5c. ${CLIENTS} × audit export of ${ROWS} rows`, once: (agent) => send(agent, base, 'GET', '/v1/audit/export?status=all', { 'X-API-Key': account.export.key }) },
      {
        name: `5d. ${CLIENTS} × dashboard search %%% / ___`,
        once: (agent, i) =>
          send(agent, base, 'GET', `/_fragments/coada?vedere=toate&cauta=${i % 2 === 0 ? '%25%25%25' : '___'}`, { Cookie: cookies.search, 'HX-Request': 'true', ...host }),
      },
      {
        name: `6. ${ROWS} records of an account without registry credentials queued for the worker`,
        async run(untilMs) {
          await sql`DELETE FROM submissions WHERE account_id = ${account.creds.id}`;
          await seedRows(account.creds.id, ROWS, `c-${Math.random()}-`, "'queued'");
          while (performance.now() < untilMs) await sleep(100);
          const [row] = await sql<{ waiting: number; due: number }[]>`
            SELECT count(*) FILTER (WHERE next_attempt_at > now())::int AS waiting, count(*) FILTER (WHERE next_attempt_at IS NULL OR next_attempt_at <= now())::int AS due
            FROM submissions WHERE account_id = ${account.creds.id} AND status = 'queued'`;
          return [{ status: 0, cod: `${row!.waiting} put off, ${row!.due} still due at the window's end`, retryAfter: null, ms: 0 }];
        },
      },
    ];

    const other = otherClient(origin, account.B.key);
    const pid = server.pid!;
    console.log(
      `server idle RSS ${rssMb(pid, 'VmRSS').toFixed(0)} MB; ${CLIENTS} attacking clients; ${ROUNDS} rounds of ${ATTACK_S} s quiet then ${ATTACK_S} s attacked per attack; Retry-After ${HONOUR_RETRY ? 'honoured' : 'ignored'}; per-key limit ${process.env.BENCH_KEY_LIMIT}/min`,
    );
    const table: string[] = [];
    // Warm-up: B's first calls (connections, plans) are no quiet measurement.
    await sleep(500);
    await other.loop(100).stop();
    try {
      for (const attack of attacks.filter((a) => !ONLY || ONLY.includes(a.name.split('.')[0]!))) {
        await attack.prepare?.();
        const quietMs: number[] = [];
        /** B's attacked calls: the round, when the call started in its window (ms), and its time. */
        const timeline: { round: number; at: number; ms: number }[] = [];
        const answers: Answer[] = [];
        let failures = 0;
        let peak = rssMb(pid, 'VmRSS');
        const cpu: CpuSpent = { own: 0, server: 0, postgres: 0, machine: 0 };
        for (let round = 0; round < ROUNDS; round++) {
          const quiet = other.loop();
          await sleep(ATTACK_S * 1000);
          const q = await quiet.stop();
          quietMs.push(...q.ms);
          const sampler = setInterval(() => {
            peak = Math.max(peak, rssMb(pid, 'VmRSS'));
          }, 50);
          const loop = other.loop();
          const before = cpuNow(pid);
          answers.push(...(await runAttack(attack, performance.now() + ATTACK_S * 1000)));
          const during = await loop.stop();
          for (const [k, v] of Object.entries(cpuSpent(before, cpuNow(pid)))) cpu[k as keyof CpuSpent] += v;
          clearInterval(sampler);
          for (const [i, at] of during.at.entries()) timeline.push({ round, at, ms: during.ms[i]! });
          failures += during.failures;
          // Whatever the attacker still has in flight ends before the next quiet window.
          await sleep(1_500);
        }
        const quiet = latencies(quietMs);
        const loaded = latencies(timeline.map((call) => call.ms));
        const ratio = loaded.p95 / quiet.p95;
        console.log(`\n${attack.name}`);
        console.log(
          `  B: quiet p50 ${quiet.p50.toFixed(1)} / p95 ${quiet.p95.toFixed(1)} ms; attacked p50 ${loaded.p50.toFixed(1)} / p95 ${loaded.p95.toFixed(1)} ms (max ${loaded.max.toFixed(0)} ms, ${loaded.n} calls, ${failures} failed); p95 ratio ${ratio.toFixed(2)} (target ≤ 2)`,
        );
        console.log(`  B's calls over 2 × its quiet p95, by round and half-second of the attacked window: ${whenSlow(timeline, 2 * quiet.p95)}`);
        console.log(`  attacker: ${answers.length} answers: ${describeAnswers(answers)}`);
        console.log(`  server peak RSS during the attack ${peak.toFixed(0)} MB`);
        const capacity = availableParallelism() * ROUNDS * ATTACK_S;
        console.log(
          `  CPU over the attacked windows (${capacity} s of ${availableParallelism()} cores): this process (the attackers, and B's client) ${cpu.own.toFixed(1)} s, ` +
            `the server ${cpu.server.toFixed(1)} s, PostgreSQL ${cpu.postgres.toFixed(1)} s, the rest (stager, worker, the system) ${(cpu.machine - cpu.own - cpu.server - cpu.postgres).toFixed(1)} s, idle ${(capacity - cpu.machine).toFixed(1)} s`,
        );
        table.push(
          `| ${attack.name.split('.')[0]} | ${quiet.p50.toFixed(1)} / ${quiet.p95.toFixed(1)} | ${loaded.p50.toFixed(1)} / ${loaded.p95.toFixed(1)} | ${ratio.toFixed(2)} | ${failures} | ${peak.toFixed(0)} | ${cpu.own.toFixed(1)} / ${cpu.server.toFixed(1)} / ${cpu.postgres.toFixed(1)} |`,
        );
      }
    } finally {
      await other.close();
    }
    console.log(
      '\n| attack | B quiet p50 / p95 ms | B attacked p50 / p95 ms | p95 ratio | B failed | peak RSS MB | CPU s: attackers / server / PostgreSQL |\n| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const row of table) console.log(row);
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
async function signIn(origin: string, email: string): Promise<string> {
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
    body: new URLSearchParams({ _csrf: csrf, email, parola: PASSWORD }).toString(),
  });
  const session = login.headers.getSetCookie().find((c) => c.startsWith('gw_sesiune='));
  if (!session) throw new Error(`sign-in failed: ${login.status}`);
  return session.split(';')[0]!;
}

await main();
