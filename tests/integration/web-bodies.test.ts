import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { serveOnLoopback } from '../helpers/serve';
import { browser, FAST_SCRYPT, makeUser, UPLOAD_FORM_PATH, WEB_FORM_PATHS } from '../helpers/web';

// Issue 17, part 2: a body that cannot be read (broken multipart, cut off by the client) is a
// 4xx in the catalog's words, journalled at most as a warning, and counted per address; never
// a 500 with an error row and its stack.

const GARBAGE = { 'Content-Type': 'multipart/form-data; boundary=q', Host: 'localhost', Origin: 'http://localhost' };

let t: TestApp;
let email: string;

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_AUTH_FAILURES_PER_MIN: '1000' });
  email = (await makeUser(t, await t.createAccount())).email;
});
afterAll(() => t.close());

async function journal(app: TestApp = t) {
  await app.ctx.journal.flush();
  return app.ctx.sql<{ event: string; level: string; data: Record<string, unknown> }[]>`SELECT event, level, data FROM app_events ORDER BY id`;
}

describe('a multipart body that is not valid', () => {
  it.each(WEB_FORM_PATHS)('%s: 400 CORP_ILIZIBIL without a session and with one, no error row', async (path) => {
    const stranger = await t.app.request(`http://localhost${path}`, { method: 'POST', headers: GARBAGE, body: 'garbage' });
    const text = await stranger.text();
    if (path === UPLOAD_FORM_PATH) {
      // An upload's body is never read for someone signed out: sent to the sign-in first.
      expect(stranger.status, text).toBe(303);
    } else {
      expect(stranger.status, text).toBe(400);
      expect(text).toContain('Corpul cererii nu poate fi citit.');
    }

    const b = browser(t);
    await b.login(email);
    await b.get('/');
    const signedIn = await t.app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: { ...GARBAGE, Cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'X-CSRF-Token': b.csrf()! },
      body: '--q\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\nnu se termină',
    });
    expect(signedIn.status).toBe(400);
    // The session still works.
    expect((await b.get('/')).status).toBe(200);
    expect((await journal()).filter((r) => r.level === 'error')).toEqual([]);
  });

  it('a form without a boundary, or an urlencoded body of odd bytes, is never a 5xx', async () => {
    for (const [type, body] of [
      ['multipart/form-data', 'a=1'],
      ['multipart/form-data; boundary=', '--\r\n'],
      ['application/x-www-form-urlencoded', '%ZZ=%%&email=\u0000'],
      ['application/x-www-form-urlencoded; charset=utf-16', '\xff\xfe'],
    ]) {
      const res = await t.app.request('http://localhost/login', { method: 'POST', headers: { ...GARBAGE, 'Content-Type': type! }, body });
      expect(res.status, `${type}: ${await res.clone().text()}`).toBeGreaterThanOrEqual(400);
      expect(res.status, type).toBeLessThan(500);
    }
  });
});

describe('per address', () => {
  it('300 broken bodies: 400 up to GATEWAY_AUTH_FAILURES_PER_MIN, then 429 with Retry-After; three journal rows at most, none an error', async () => {
    const limited = await startTestApp({ GATEWAY_AUTH_FAILURES_PER_MIN: '20' }, { stager: false });
    try {
      const started = performance.now();
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      // The upload reads no body signed out (a 303): every other form's is.
      const paths = WEB_FORM_PATHS.filter((p) => p !== UPLOAD_FORM_PATH);
      for (let i = 0; i < 300; i++) {
        const res = await limited.app.request(`http://localhost${paths[i % paths.length]}`, { method: 'POST', headers: GARBAGE, body: 'garbage' });
        statuses.push(res.status);
        if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
      }
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
      expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      const rows = await journal(limited);
      expect(rows.map((r) => [r.event, r.level])).toEqual([
        ['corp_ilizibil', 'warn'],
        ['corp_ilizibil_limitat', 'warn'],
      ]);
      expect(rows[0]!.data).toMatchObject({ path: '/login', method: 'POST' });
      expect(JSON.stringify(rows)).not.toContain('stack');
    } finally {
      await limited.close();
    }
  });
});

describe('over HTTP', () => {
  // An app of its own: its per-address counter has seen nothing yet, so the first abort is journalled.
  let h: TestApp;
  let server: Awaited<ReturnType<typeof serveOnLoopback>>;
  let key: string;
  beforeAll(async () => {
    h = await startTestApp();
    server = await serveOnLoopback(h.app.fetch);
    key = await h.createKey(await h.createAccount());
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  /** Sends the headers and half of a body of `length` bytes, then closes the connection. */
  async function abortMidBody(path: string, headers: Record<string, string>, length = 1_000) {
    const port = new URL(server.base).port;
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.on('error', () => undefined);
    const lines = Object.entries({ Host: `127.0.0.1:${port}`, 'Content-Length': String(length), ...headers }).map(([k, v]) => `${k}: ${v}`);
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    socket.write('--q\r\nContent-Disposition: form-data; name="email"\r\n\r\n'.padEnd(length / 2, 'x'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  it('a body the client cuts off is no eroare_neprevazuta, on the dashboard or the API; the server keeps serving', async () => {
    await abortMidBody('/login', { 'Content-Type': 'multipart/form-data; boundary=q' });
    await abortMidBody('/mapari', { 'Content-Type': 'application/x-www-form-urlencoded' });
    await abortMidBody('/v1/prezentari', { 'Content-Type': 'application/json', 'X-API-Key': key });
    await abortMidBody('/v1/prezentari', { 'Content-Type': 'text/plain', 'X-API-Key': key });
    await abortMidBody('/v1/import', { 'Content-Type': 'multipart/form-data; boundary=q', 'X-API-Key': key });
    const rows = await journal(h);
    expect(rows.filter((r) => r.level === 'error' || r.event === 'eroare_neprevazuta')).toEqual([]);
    expect(rows.filter((r) => r.event === 'cerere_intrerupta').map((r) => r.level)).toEqual(['info']);
    expect((await fetch(`${server.base}/login`)).status).toBe(200);
  });

  it('a chunked form body past the limit is a 413 notice, no error row', async () => {
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(`a${i}=${'x'.repeat(8_000)}&`));
        controller.close();
      },
    });
    const res = await fetch(`${server.base}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('Cererea depășește dimensiunea maximă.');
    expect((await journal(h)).filter((r) => r.level === 'error')).toEqual([]);
  });
});
