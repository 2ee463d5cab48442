import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { serveOnLoopback } from '../helpers/serve';
import { browser, FAST_SCRYPT, makeUser, WEB_FORM_PATHS } from '../helpers/web';
import { CANARY, encodeSegment, hostileStrings } from './hostile';

// Property-based fuzzing of every dashboard form (like tests/fuzz/api.test.ts for the API):
// broken, truncated, oversized and wrong-typed multipart and urlencoded bodies, wrong content
// types and bodies cut off mid-way, signed out and signed in. Every answer must come without a
// 5xx; afterwards no error-level journal row, nothing written, and the server still serves.
// A signed-in request carries the session's token only where its form's schema must refuse
// the body (a required field repeated, a file, or missing), so nothing can be saved.

/** Runs per form: FUZZ_RUNS, else 300 under `npm run fuzz` and 25 under `npm test` (~300 requests, a few seconds). */
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.npm_lifecycle_event === 'fuzz' ? 300 : 25));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const TIMEOUT_MS = 5_000;
const HTTP_EVERY = 5;

/** Forms whose body a schema reads: the only ones a signed-in request reaches with the right token. */
const SCHEMA_FORMS: Record<string, string[]> = {
  '/login': ['email', 'parola'],
  '/mapari': ['cod_op_service', 'cod_prestatie'],
  '/trimitere/1/mapeaza': ['cod_op_service', 'cod_prestatie'],
  '/trimitere/1/corecteaza': ['vin', 'nrInm', 'dataPrestatie', 'odometruFinal'],
  '/cont/creds': ['username', 'password'],
  '/trimiteri/actiuni': ['actiune', 'id'],
  '/trimiteri/actiuni/executa': ['actiune', 'id', 'amprenta'],
};

let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let session: { cookie: string; csrf: string };
let heldId: number;
let before: unknown;
const stats = { requests: 0, statuses: new Map<number, number>() };

/** Everything a form could change, in every account. */
async function snapshot() {
  await t.ctx.journal.flush();
  const sql = t.ctx.sql;
  return {
    submissions: await sql`SELECT id, status, payload_json, nemapate, erori, reg_creds_enc FROM submissions ORDER BY id`,
    mappings: await sql`SELECT * FROM operation_mappings ORDER BY id`,
    rules: await sql`SELECT * FROM text_rules ORDER BY id`,
    accounts: await sql`SELECT id, reg_creds_enc, on_unmapped_error_default FROM accounts ORDER BY id`,
    sessions: await sql`SELECT token_hash FROM web_sessions ORDER BY token_hash`,
  };
}

interface Body {
  label: string;
  contentType?: string;
  body?: string | Uint8Array;
}

const enc = (s: string) => new TextEncoder().encode(s);
const part = (boundary: string, name: string, value: string, filename?: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n\r\n${value}\r\n`;

/** Bodies that are no form, or a form that no schema takes. `fields` are the form's own names; `token` is put where it cannot count. */
function bodyArb(fields: string[], token: string): fc.Arbitrary<Body> {
  const names = fields.length ? fields : ['_csrf'];
  const value = hostileStrings(CANARY).map((h) => h.value.slice(0, 3_000));
  const multipart = fc.constantFrom('multipart/form-data; boundary=q', 'multipart/form-data; boundary="q"', 'MULTIPART/FORM-DATA; boundary=q');
  return fc.oneof(
    // Not multipart at all, or cut short, under a multipart type.
    fc
      .tuple(multipart, fc.constantFrom('garbage', '', '--q', '--q\r\n', `--q\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}`, '--q--garbage', '\r\n\r\n--q--'))
      .map(([type, body]) => ({ label: 'multipart-broken', contentType: type, body })),
    fc
      .constantFrom('multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary=${'b'.repeat(200)}`, 'multipart/mixed; boundary=q')
      .map((type) => ({ label: 'multipart-boundary', contentType: type, body: `${part('q', '_csrf', token)}--q--\r\n` })),
    fc.uint8Array({ maxLength: 3_000 }).map((bytes) => ({ label: 'multipart-random', contentType: 'multipart/form-data; boundary=q', body: bytes })),
    // Well-formed multipart whose fields no schema takes: a required field twice, or as a file, and hostile values.
    fc.tuple(fc.constantFrom(...names), value, fc.boolean()).map(([name, v, asFile]) => {
      const parts = names.map((n) => part('q', n, v)).join('') + (asFile ? part('q', name, v, `${CANARY}.txt`) : part('q', name, 'al-doilea'));
      return { label: asFile ? 'multipart-file-field' : 'multipart-repeated', contentType: 'multipart/form-data; boundary=q', body: `${parts}--q--\r\n` };
    }),
    // urlencoded: odd escapes and bytes, a field repeated or missing.
    fc.tuple(fc.constantFrom(...names), value).map(([name, v]) => ({
      label: 'urlencoded-repeated',
      contentType: 'application/x-www-form-urlencoded',
      body: `${names.map((n) => `${n}=${encodeSegment(v).slice(0, 3_000)}`).join('&')}&${name}=x`,
    })),
    fc
      .constantFrom('%ZZ=%%', `_csrf=${token}%`, '=&&==&', `${'a='.repeat(5_000)}`, '\u0000=\ud800')
      .map((body) => ({ label: 'urlencoded-odd', contentType: 'application/x-www-form-urlencoded', body })),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => ({ label: 'urlencoded-random', contentType: 'application/x-www-form-urlencoded; charset=utf-16', body: bytes })),
    // Past the 64 KiB a form may have.
    fc.integer({ min: 65_537, max: 300_000 }).map((n) => ({ label: 'oversized', contentType: 'application/x-www-form-urlencoded', body: enc(`a=${'x'.repeat(n)}`) })),
    // Another type, or none.
    fc
      .tuple(fc.constantFrom('application/json', 'text/plain', `application/${CANARY}`, undefined), fc.constantFrom('{"email":1}', '', 'garbage', `{"_csrf":"${token}"}`))
      .map(([type, body]) => ({ label: 'other-type', contentType: type, body })),
  );
}

function requestArb(path: string): fc.Arbitrary<{ path: string; signedIn: boolean; body: Body }> {
  const fields = SCHEMA_FORMS[path] ?? [];
  return fc.boolean().chain((signedIn) => bodyArb(fields, signedIn ? session.csrf : 'nu-e-jetonul').map((body) => ({ path, signedIn, body })));
}

async function send(req: { path: string; signedIn: boolean; body: Body }): Promise<Response> {
  const headers: Record<string, string> = { Host: 'localhost', Origin: 'http://localhost' };
  if (req.body.contentType !== undefined) headers['Content-Type'] = req.body.contentType;
  if (req.signedIn) {
    headers.Cookie = session.cookie;
    // The right token only where the schema must refuse the body; a wrong one elsewhere (the guard still reads the body).
    headers['X-CSRF-Token'] = req.path in SCHEMA_FORMS && req.body.label.startsWith('multipart-') ? session.csrf : 'nu-e-jetonul';
  }
  const overHttp = stats.requests++ % HTTP_EVERY === HTTP_EVERY - 1;
  const init: RequestInit = { method: 'POST', redirect: 'manual', headers, body: req.body.body as RequestInit['body'], signal: AbortSignal.timeout(TIMEOUT_MS) };
  if (overHttp) {
    const url = `${server.base}${req.path}`;
    return fetch(url, { ...init, headers: { ...headers, Host: new URL(server.base).host, Origin: server.base } }).catch((error: unknown) => {
      // The server may close a connection whose body it refused unread (413): the transport, not an answer.
      if (/EPIPE|ECONNRESET|other side closed|socket/i.test(`${String(error)} ${String((error as { cause?: unknown }).cause)}`)) return new Response(null, { status: 413 });
      throw error;
    });
  }
  return t.app.request(`http://localhost${req.path}`, init);
}

/** Sends the headers and part of a body, then closes the connection. */
async function abortMidBody(path: string, contentType: string) {
  const { hostname, port } = new URL(server.base);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('error', () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${contentType}\r\nContent-Length: 5000\r\nCookie: ${session.cookie}\r\n\r\n--q\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  socket.destroy();
}

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_AUTH_FAILURES_PER_MIN: '100000', GATEWAY_LOGIN_FAILURES_PER_EMAIL: '100000' });
  const account = await t.createAccount('Atacator');
  const other = await t.createAccount('Victimă');
  const key = await t.createKey(account);
  await t.call('POST', '/v1/prezentari', { key: await t.createKey(other), body: makeSubmission({ prestatii: [{ cod_op_service: 'B-1', denumire: 'Ulei' }] }) });
  const held = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ prestatii: [{ cod_op_service: 'A-1', denumire: 'Ulei' }] }) });
  heldId = ((await held.json()) as { submission_id: number }).submission_id;
  await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'X1', cod_prestatie: 'OE-3' } });
  const b = browser(t);
  await b.login((await makeUser(t, account)).email);
  await b.get('/');
  session = { cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '), csrf: b.csrf()! };
  server = await serveOnLoopback(t.app.fetch);
  before = await snapshot();
});

afterAll(async () => {
  const statuses = [...stats.statuses].sort(([x], [y]) => x - y).map(([s, n]) => `${s}×${n}`);
  console.log(`fuzz web forms: ${WEB_FORM_PATHS.length} forms × ${RUNS} runs = ${stats.requests} requests; statuses ${statuses.join(' ')}`);
  await server?.close();
  await t?.close();
});

describe('fuzzing every dashboard form', () => {
  it('answers broken, oversized, wrong-typed and wrong-type bodies without a 5xx', async () => {
    const failures: string[] = [];
    for (const formPath of WEB_FORM_PATHS) {
      const path = formPath.replace('/trimitere/1/', `/trimitere/${heldId}/`);
      const result = await fc.check(
        fc.asyncProperty(requestArb(formPath), async (req) => {
          const res = await send({ ...req, path });
          stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
          await res.arrayBuffer();
          return res.status < 500;
        }),
        { numRuns: RUNS, seed: SEED },
      );
      if (result.failed) failures.push(`${formPath}: seed ${result.seed}, path ${result.counterexamplePath}: ${JSON.stringify(result.counterexample?.[0]).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('takes bodies cut off mid-way without an error row', async () => {
    for (const path of WEB_FORM_PATHS) {
      await abortMidBody(path, 'multipart/form-data; boundary=q');
      await abortMidBody(path, 'application/x-www-form-urlencoded');
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  it('wrote nothing, journalled no error, and still serves', async () => {
    await t.ctx.journal.flush();
    const errors = await t.ctx.sql`SELECT event, data FROM app_events WHERE level = 'error' OR event = 'eroare_neprevazuta'`;
    expect(errors).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await fetch(`${server.base}/login`)).status).toBe(200);
    expect((await t.app.request('http://localhost/', { headers: { Host: 'localhost', Cookie: session.cookie } })).status).toBe(200);
  });
});
