import { serve, type ServerType } from '@hono/node-server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload } from '../helpers/import-files';
import { CANARY, SECRET, type Labeled } from './hostile';
import { type FuzzRequest, type Operation, type OperationDoc, opName, requestArb, type Targets } from './requests';
import { KNOWN_FINDINGS } from './known-findings';

// Property-based fuzzing of every operation of the OpenAPI document, as account A, with
// hostile values (tests/fuzz/hostile.ts). Each request must be answered without a 5xx,
// within a time bound, with a status the document lists, with no canary in its headers or
// in an error body and no secret anywhere; afterwards account B's rows must be exactly as
// before. `npm test` runs 50 requests per operation (about 1,650, a few seconds); `npm run fuzz` 2,000.
// FUZZ_RECORD_ALL=1 records every violation instead of failing on the first (for a report).

/** Runs per operation: FUZZ_RUNS, else 2,000 under `npm run fuzz` and 50 under `npm test`. */
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.npm_lifecycle_event === 'fuzz' ? 2_000 : 50));
const TIMEOUT_MS = Number(process.env.FUZZ_REQUEST_TIMEOUT_MS ?? 5_000);
const RECORD_ALL = process.env.FUZZ_RECORD_ALL === '1';
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** One request in HTTP_EVERY goes over a real @hono/node-server (bodies are read from Node's stream there). */
const HTTP_EVERY = 5;
/** Answered by Node's HTTP server before the app sees the request (a URL past 16 KB: 431). */
const NODE_STATUSES = new Set([431]);

let t: TestApp;
let server: ServerType;
let port: number;
let keyA: string;
let keyB: string;
let accountB: number;
let operations: Operation[];
let targets: Targets;
let before: Record<string, unknown[]>;

interface Violation {
  op: string;
  url: string;
  body: string;
  kind: 'server-error' | 'timeout' | 'canary-echo' | 'secret-echo' | 'undocumented-status' | 'request-failed';
  status: number;
  labels: string[];
  detail: string;
  /** The start of the answer's body, which KNOWN_FINDINGS' `detail` is matched against. */
  answer: string;
}

const stats = { runs: 0, requests: 0, http: 0, resent: 0, statuses: new Map<number, number>(), slowestMs: 0, started: 0 };
const findings: Violation[] = [];

const [CANARY_LOW, SECRET_LOW] = [CANARY.toLowerCase(), SECRET.toLowerCase()];
const statusSet = (op: Operation) => new Set(Object.keys(op.doc.responses).map(Number));

/** Account B's rows, everything an API call could change, as JSON text per table. */
async function snapshotB(): Promise<Record<string, unknown[]>> {
  await t.ctx.journal.flush();
  const sql = t.ctx.sql;
  const b = accountB;
  const batches = sql`SELECT id FROM import_batches WHERE account_id = ${b}`;
  const submissionIds = sql`SELECT id FROM submissions WHERE account_id = ${b}`;
  const rows = async (q: Promise<Array<{ r: unknown }>>) => (await q).map((x) => x.r);
  return {
    account: await rows(sql`SELECT to_jsonb(a) AS r FROM accounts a WHERE id = ${b}`),
    api_keys: await rows(sql`SELECT to_jsonb(k) AS r FROM api_keys k WHERE account_id = ${b} ORDER BY id`),
    submissions: await rows(sql`SELECT to_jsonb(s) AS r FROM submissions s WHERE account_id = ${b} ORDER BY id`),
    submission_attempts: await rows(sql`SELECT to_jsonb(x) AS r FROM submission_attempts x WHERE submission_id IN (${submissionIds}) ORDER BY 1`),
    operation_mappings: await rows(sql`SELECT to_jsonb(m) AS r FROM operation_mappings m WHERE account_id = ${b} ORDER BY id`),
    text_rules: await rows(sql`SELECT to_jsonb(r) AS r FROM text_rules r WHERE account_id = ${b} ORDER BY id`),
    import_batches: await rows(sql`SELECT to_jsonb(x) AS r FROM import_batches x WHERE account_id = ${b} ORDER BY id`),
    import_rows: await rows(sql`SELECT to_jsonb(x) AS r FROM import_rows x WHERE batch_id IN (${batches}) ORDER BY batch_id, row_index`),
    import_row_blocks: await rows(sql`SELECT to_jsonb(x) AS r FROM import_row_blocks x WHERE batch_id IN (${batches}) ORDER BY batch_id, block_no`),
    column_mappings: await rows(sql`SELECT to_jsonb(x) AS r FROM column_mappings x WHERE account_id = ${b} ORDER BY id`),
    import_attestations: await rows(sql`SELECT to_jsonb(x) AS r FROM import_attestations x WHERE account_id = ${b} ORDER BY id`),
    app_events: await rows(sql`SELECT to_jsonb(x) AS r FROM app_events x WHERE account_id = ${b} ORDER BY id`),
  };
}

async function ok(res: Response | Promise<Response>, status = 200): Promise<Record<string, unknown>> {
  const r = await res;
  const body = await json(r);
  expect(r.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** Rows of each kind for an account: a mapping, a text rule, held and queued submissions, reg creds, a staged import. */
async function seed(key: string, prefix: string) {
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { key, body });
  await ok(call('POST', '/v1/mapari', { cod_op_service: `${prefix}1`, cod_prestatie: 'OE-3' }));
  const rule = await ok(call('POST', '/v1/reguli-text', { pattern: 'schimb ulei', cod_prestatie: 'OE-3' }), 201);
  await ok(call('POST', '/v1/conturi/reg-creds', { username: `${prefix}-user`, password: 'parola-registru' }));
  const submissions: number[] = [];
  for (const prestatii of [[{ cod_prestatie: 'OE-3' }], [{ cod_op_service: `${prefix}-NEMAPAT`, denumire: 'Ceva' }], [{ cod_op_service: `${prefix}1`, denumire: 'Ulei' }]]) {
    const s = await ok(
      call('POST', '/v1/prezentari', { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 1000 + submissions.length, prestatii }),
    );
    submissions.push(s.submission_id as number);
  }
  const file = csvFile([
    HEADER,
    ['WDB1234561A654321', 'B123ABC', '2025-03-14', 100, 200, `${prefix}1`, 'Ulei'],
    ['WDB1234561A654321', 'B77XYZ', '2025-03-15', 300, 400, 'NECUNOSCUT', 'Altceva'],
  ]);
  const batch = await ok(upload(t, key, file, 'prestatii.csv'), 201);
  const batchId = batch.batch_id as number;
  const preview = await ok(call('GET', `/v1/import/${batchId}/preview`));
  return { ruleId: (rule.regula as { id: number }).id, submissions, batchId, preview, file, code: `${prefix}1` };
}

function send(req: FuzzRequest, overHttp: boolean): Promise<Response> {
  const init: RequestInit = { method: req.method, headers: req.headers, body: req.body as RequestInit['body'], signal: AbortSignal.timeout(TIMEOUT_MS) };
  if (overHttp) return fetch(`http://127.0.0.1:${port}${req.url}`, init);
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS).unref());
  return Promise.race([Promise.resolve(t.app.request(req.url, init)), timeout]);
}

/** Sends one request and returns what is wrong with its answer. */
async function check(op: Operation, req: FuzzRequest): Promise<Violation[]> {
  const overHttp = stats.requests % HTTP_EVERY === HTTP_EVERY - 1;
  stats.requests += 1;
  if (overHttp) stats.http += 1;
  const started = performance.now();
  let answer = '';
  const v = (kind: Violation['kind'], status: number, detail: string): Violation => ({
    op: req.op,
    url: req.url.slice(0, 120),
    body: preview(req.body),
    kind,
    status,
    labels: req.labels,
    detail,
    answer,
  });
  let res: Response;
  let utf8: string;
  try {
    res = await send(req, overHttp).catch((error: unknown) => {
      // @hono/node-server closes a keep-alive socket whose request body the app did not read
      // (an early 401/422) once draining it takes too long; the client's next request on that
      // socket then fails, or this one fails to finish writing its body (EPIPE). That is the
      // transport, not this request: it is sent again, counted.
      if (!overHttp || !/other side closed|ECONNRESET|EPIPE|socket/i.test(`${String(error)} ${String((error as { cause?: unknown }).cause)}`)) throw error;
      stats.resent += 1;
      return send(req, overHttp);
    });
    utf8 = Buffer.from(await res.arrayBuffer()).toString('utf8');
  } catch (error) {
    const message = `${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`;
    return [v(/timeout|abort/i.test(message) ? 'timeout' : 'request-failed', 0, message.slice(0, 200))];
  }
  const elapsed = performance.now() - started;
  stats.slowestMs = Math.max(stats.slowestMs, elapsed);
  stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
  answer = utf8.slice(0, 2_000);
  const headers = [...res.headers].map(([k, value]) => `${k}: ${value}`).join('\n');
  const out: Violation[] = [];
  // /healthz says 503 (degradat) by design while no worker runs: a monitor's answer, not a failure.
  const degraded = req.op === 'GET /healthz' && res.status === 503 && utf8.includes('"status":"degradat"');
  if (res.status >= 500 && !degraded) out.push(v('server-error', res.status, utf8.slice(0, 200)));
  if (elapsed > TIMEOUT_MS) out.push(v('timeout', res.status, `${Math.round(elapsed)} ms`));
  // Case-insensitive: an upper-cased echo is still an echo.
  const [lowBody, lowHeaders] = [utf8.toLowerCase(), headers.toLowerCase()];
  const around = (token: string) => utf8.slice(Math.max(0, lowBody.indexOf(token) - 100), lowBody.indexOf(token) + 60);
  if (lowHeaders.includes(CANARY_LOW)) out.push(v('canary-echo', res.status, `header: ${headers.slice(0, 200)}`));
  if (res.status >= 300 && lowBody.includes(CANARY_LOW)) out.push(v('canary-echo', res.status, around(CANARY_LOW)));
  if (lowBody.includes(SECRET_LOW) || lowHeaders.includes(SECRET_LOW)) out.push(v('secret-echo', res.status, around(SECRET_LOW)));
  if (res.status < 500 && !statusSet(op).has(res.status) && !(overHttp && NODE_STATUSES.has(res.status))) out.push(v('undocumented-status', res.status, utf8.slice(0, 200)));
  return out;
}

const isKnown = (f: Violation) =>
  KNOWN_FINDINGS.some(
    (k) =>
      k.kind === f.kind &&
      (k.op === '*' || k.op === f.op) &&
      (k.label === undefined || f.labels.some((l) => l === k.label || l.endsWith(`-${k.label}`))) &&
      (k.detail === undefined || k.detail.test(f.answer)),
  );

function preview(body: FuzzRequest['body']): string {
  if (body === undefined) return '';
  if (typeof body === 'string') return JSON.stringify(body.slice(0, 100));
  if (body instanceof Uint8Array) return `<${body.length} bytes>`;
  return `<form ${[...body.keys()].join(',')}>`;
}

beforeAll(async () => {
  // The fuzz judges each answer, not the account's budget of costly work: exports called again
  // and again would be paced past its time-out.
  t = await startTestApp();
  const accountA = await t.createAccount('Atacator');
  accountB = await t.createAccount('Victimă');
  keyA = await t.createKey(accountA);
  keyB = await t.createKey(accountB);
  const a = await seed(keyA, 'A');
  const b = await seed(keyB, 'B');
  await new Promise<void>((resolve) => {
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      port = info.port;
      resolve();
    });
  });
  const doc = await json(await t.call('GET', '/openapi.json'));
  operations = Object.entries(doc.paths as Record<string, Record<string, OperationDoc>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, d]) => ({ method, path, doc: d })),
  );
  const own = (values: Array<string | number>) => values.map((x) => ({ label: 'own-id', value: String(x) }));
  const other = (values: Array<string | number>) => values.map((x) => ({ label: 'other-account-id', value: String(x) }));
  const row = { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruInitial: 10, odometruFinal: 20 };
  const submission = {
    ...row,
    prestatii: [{ cod_prestatie: 'OE-3' }, { cod_op_service: 'A1', denumire: 'Ulei' }],
    b64Image: 'QUJD',
    reg_credentials: { username: 'u', password: 'p' },
    on_unmapped_error: false,
  };
  targets = {
    key: keyA,
    uploadFile: a.file,
    examples: {
      'POST /v1/prezentari': submission,
      'POST /v1/prezentari/valideaza': submission,
      'POST /v1/mapari': { cod_op_service: 'A2', cod_prestatie: 'OE-3', auto_send: true },
      'POST /v1/reguli-text': { pattern: 'revizie', cod_prestatie: 'OE-3', priority: 5 },
      'PUT /v1/reguli-text/{id}': { pattern: 'revizie', cod_prestatie: 'OE-3', priority: 5 },
      'POST /v1/conturi/reg-creds': { username: 'user', password: 'parola' },
      'POST /v1/import/{id}/column-mapping': {
        column_mapping: { vin: 0, nrInm: HEADER[1], dataPrestatie: 2, odometruInitial: 3, odometruFinal: 4, cod_op_service: 5, denumire_op: 6 },
      },
      'POST /v1/import/{id}/rand/{i}/editeaza': { ...row, cod_op_service: 'A1', denumire_op: 'Ulei', cod_prestatie: 'OE-3' },
      'POST /v1/import/{id}/rand/{i}/revizuire': { include: true },
      'POST /v1/import/{id}/rand/{i}/deoparte': { deoparte: true },
      'POST /v1/import/{id}/commit': { n_confirmed: a.preview.n_to_commit, rows_hash: a.preview.rows_hash },
    },
    pathValues: (path, param): Array<Labeled<string>> => {
      if (param === 'file') return [{ label: 'own-id', value: 'swagger-ui.css' }];
      if (param === 'code') return [...own([a.code]), ...other([b.code])];
      if (param === 'i') return own([1, 2]);
      if (path.startsWith('/v1/import/')) return [...own([a.batchId]), ...other([b.batchId])];
      if (path.startsWith('/v1/reguli-text/')) return [...own([a.ruleId]), ...other([b.ruleId])];
      return [...own(a.submissions), ...other(b.submissions)];
    },
  };
  before = await snapshotB();
  stats.started = performance.now();
}, 60_000);

afterAll(async () => {
  const seconds = ((performance.now() - stats.started) / 1000).toFixed(1);
  const statuses = [...stats.statuses]
    .sort(([x], [y]) => x - y)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const lines = [
    `fuzz: ${operations?.length ?? 0} operations × ${RUNS} runs = ${stats.runs} runs, ${stats.requests} requests (${stats.http} over HTTP, ${stats.resent} resent after the server closed a keep-alive socket) in ${seconds} s; slowest ${Math.round(stats.slowestMs)} ms`,
    `fuzz: statuses ${statuses}`,
    `fuzz: ${findings.length} violations (${findings.filter((f) => f.kind === 'server-error').length} 5xx)${findings.length ? ':' : ''}`,
  ];
  const grouped = new Map<string, { n: number; example: Violation }>();
  for (const f of findings) {
    const k = `${f.kind} ${f.status} ${f.op} [${f.labels.join(',')}]`;
    grouped.set(k, { n: (grouped.get(k)?.n ?? 0) + 1, example: f });
  }
  // Under `npm test` only what is new is listed; `npm run fuzz` and FUZZ_RECORD_ALL list the known too.
  for (const [k, { n, example }] of grouped)
    if (RECORD_ALL || RUNS > 50 || !isKnown(example))
      lines.push(`  ${isKnown(example) ? 'known' : 'NEW'} ${n}× ${k} ${example.url} ${example.body} → ${example.detail.replace(/\s+/g, ' ').slice(0, 160)}`);
  console.log(lines.join('\n'));
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await t?.close();
});

describe('fuzzing every operation of the OpenAPI document as account A', () => {
  it('starts from example bodies the API accepts, so the mutations reach past validation', async () => {
    for (const [name, body] of Object.entries(targets.examples)) {
      if (name.endsWith('/commit')) continue; // committing would close A's batch to the rest
      const [method, path] = name.split(' ') as [string, string];
      const url = path.replace(/\{(\w+)\}/g, (_m, param: string) => targets.pathValues(path, param)[0]!.value);
      const res = await t.call(method, url, { key: keyA, body });
      expect(res.status, `${name}: ${await res.text()}`).toBeLessThan(300);
    }
  });

  it(
    'answers hostile requests without a 5xx, a hang, an undocumented status or an echo',
    async () => {
      expect(operations.length).toBeGreaterThan(30);
      const failures: string[] = [];
      for (const op of operations) {
        let lastUnknown: Violation[] = [];
        const result = await fc.check(
          fc.asyncProperty(requestArb(op, targets), async (req) => {
            stats.runs += 1;
            const violations = await check(op, req);
            findings.push(...violations);
            const unknown = violations.filter((f) => !isKnown(f));
            if (unknown.length) lastUnknown = unknown;
            return RECORD_ALL || unknown.length === 0;
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: RUNS > 50 },
        );
        if (result.failed) {
          const example = result.counterexample?.[0] as FuzzRequest | undefined;
          const seen = lastUnknown.map((f) => `${f.kind} ${f.status}: ${f.detail.slice(0, 200)}`).join('; ');
          failures.push(
            `${opName(op)}: seed ${result.seed}, path ${result.counterexamplePath}: ${example ? `${example.method} ${example.url.slice(0, 200)} [${example.labels.join(',')}]` : String(result.errorInstance)} → ${seen}`,
          );
        }
      }
      expect(failures).toEqual([]);
    },
    RECORD_ALL || RUNS > 50 ? 3_600_000 : 55_000,
  );

  it("leaves account B's rows exactly as they were, and no prototype polluted", async () => {
    expect(await snapshotB()).toEqual(before);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Array.prototype).not.toHaveProperty('polluted');
  });

  it("shows account B none of A's values", async () => {
    for (const path of ['/v1/prezentari?limit=500', '/v1/mapari', '/v1/mapari/pending', '/v1/reguli-text', '/v1/ping', '/v1/audit/export?status=all']) {
      const res = await t.call('GET', path, { key: keyB });
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain(CANARY);
    }
  });
});
