import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { CATALOG } from '../../src/errors';
import { limitServer, serverOptions } from '../../src/http/server-limits';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 32: no tenant can freeze or slow the others. A body is read only by a route that wants
// it, after its checks; a body that keeps the server waiting is cut; one client address cannot
// hold the server's connections. Real sockets against the app on 127.0.0.1.

const MiB = 1024 * 1024;

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

/** The test app (or `fetch`) behind Node's server with the limits main.ts gives it, under `env`'s settings. */
async function listen(env: Record<string, string> = {}, fetch: (req: Request) => Response | Promise<Response> = t.app.fetch) {
  const config = parseConfig({ GATEWAY_SECRET_KEY: TEST_SECRET, ...env });
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1', serverOptions: serverOptions(config) }) as Server;
  limitServer(server, config);
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A raw connection (from `localAddress`, 127.0.0.1 unless given): what it received, and when it was closed. */
async function open(port: number, localAddress = '127.0.0.1') {
  const socket: Socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = performance.now();
  let data = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return {
    socket,
    received: () => data.toString('utf8'),
    /** Milliseconds from the connection to its close, or null if still open after `ms`. */
    closedWithin: (ms: number) => Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]),
    /** The first whole answer (head and Content-Length body), or null if none came within `ms`. */
    async answerWithin(ms: number): Promise<{ status: number; head: string; body: string } | null> {
      const deadline = performance.now() + ms;
      while (performance.now() < deadline) {
        const end = data.indexOf('\r\n\r\n');
        if (end >= 0) {
          const head = data.toString('latin1', 0, end);
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          const body = data.subarray(end + 4);
          if (body.length >= length) return { status: Number(head.split(' ')[1]), head, body: body.subarray(0, length).toString('utf8') };
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return null;
    },
  };
}

function head(method: string, path: string, port: number, headers: Record<string, string>): string {
  const lines = Object.entries({ Host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

const MULTIPART = 'multipart/form-data; boundary=q';
/** The start of a large multipart body: a file part whose content has not arrived yet. */
const PART = `--q\r\nContent-Disposition: form-data; name="file"; filename="mare.csv"\r\nContent-Type: text/csv\r\n\r\n${'x'.repeat(64 * 1024)}`;

describe('a body is read only by a route that wants it, after its checks', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen();
  });
  afterAll(() => server.close());

  it('multipart to a JSON route: 415 in the catalog’s words while the client is still sending its 15 MiB', async () => {
    const c = await open(server.port);
    c.socket.write(head('POST', '/v1/prezentari/valideaza', server.port, { 'X-API-Key': key, 'Content-Type': MULTIPART, 'Content-Length': String(15 * MiB) }));
    c.socket.write(PART);
    // 64 KiB of 15 MiB sent, and no more: the answer cannot wait for the rest.
    const answer = await c.answerWithin(3_000);
    expect(answer?.status).toBe(415);
    expect(JSON.parse(answer!.body)).toMatchObject({ cod: 'TIP_CORP_NESUPORTAT', problema: CATALOG.TIP_CORP_NESUPORTAT.problema });
    // Dropped on purpose as it arrives (the discard lane): the connection is kept for the client to finish.
    expect(answer!.head.toLowerCase()).not.toContain('connection: close');
    c.socket.destroy();
    // The same route still takes its JSON.
    const ok = await fetch(`http://127.0.0.1:${server.port}/v1/prezentari/valideaza`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(ok.status).toBe(422);
  });

  it('a large body with a wrong key: 401, and the connection closed rather than the body read', async () => {
    const c = await open(server.port);
    c.socket.write(head('POST', '/v1/prezentari', server.port, { 'X-API-Key': 'gw_gresita', 'Content-Type': 'application/json', 'Content-Length': String(14 * MiB) }));
    c.socket.write(`{"vin":"${'x'.repeat(64 * 1024)}`);
    const answer = await c.answerWithin(3_000);
    expect(answer?.status).toBe(401);
    expect(answer!.head.toLowerCase()).toContain('connection: close');
    expect(await c.closedWithin(2_000)).not.toBeNull();
    // A small body is read as usual: its connection is kept.
    const small = await open(server.port);
    small.socket.write(head('POST', '/v1/prezentari', server.port, { 'X-API-Key': 'gw_gresita', 'Content-Type': 'application/json', 'Content-Length': '2' }));
    small.socket.write('{}');
    const smallAnswer = await small.answerWithin(3_000);
    expect(smallAnswer?.status).toBe(401);
    expect(smallAnswer!.head.toLowerCase()).toContain('connection: keep-alive');
    small.socket.destroy();
  });

  it.each([
    ['of a declared length', { 'Content-Length': String(15 * MiB) }, PART],
    ['sent in chunks', { 'Transfer-Encoding': 'chunked' }, `${Buffer.byteLength(PART).toString(16)}\r\n${PART}\r\n`],
  ])('past ten refused large bodies (%s) in a minute, an account’s next is not read: answered at once, its connection closed', async (_, framing, start) => {
    const ownKey = await t.createKey(await t.createAccount('Trimite întruna'));
    const heads: string[] = [];
    // Whether anything had begun reading each body when its answer was written (after it, Node drains an unread body of a kept connection).
    const readWhenAnswered: boolean[] = [];
    const seen = (req: IncomingMessage, res: ServerResponse) => res.once('prefinish', () => readWhenAnswered.push(req.readableDidRead || req.readableFlowing !== null));
    server.server.on('request', seen);
    for (let i = 0; i < 11; i++) {
      const c = await open(server.port);
      c.socket.write(head('POST', '/v1/prezentari/valideaza', server.port, { 'X-API-Key': ownKey, 'Content-Type': MULTIPART, ...framing }));
      c.socket.write(start);
      const answer = await c.answerWithin(3_000);
      expect(answer?.status).toBe(415);
      heads.push(answer!.head.toLowerCase());
      c.socket.destroy();
    }
    expect(heads.slice(0, 10).every((h) => !h.includes('connection: close'))).toBe(true);
    expect(heads[10]).toContain('connection: close');
    server.server.off('request', seen);
    // Nothing began reading it: no stream of the body was made to ask whether it had one.
    expect(readWhenAnswered[10]).toBe(false);
  });

  it('the upload route does not read a body of another type before refusing it', async () => {
    const c = await open(server.port);
    c.socket.write(head('POST', '/v1/import', server.port, { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': String(10 * MiB) }));
    c.socket.write('{"a":"');
    const answer = await c.answerWithin(3_000);
    expect(answer?.status).toBe(422);
    expect(answer!.body).toContain('multipart_required');
    c.socket.destroy();
  });

  it('a dashboard upload without X-CSRF-Token is refused before its body is read; with it, the body is awaited', async () => {
    const { email } = await makeUser(t, await t.createAccount());
    const b = browser(t);
    await b.login(email);
    await b.get('/');
    const headers = {
      Cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      Origin: `http://127.0.0.1:${server.port}`,
      'HX-Request': 'true',
      'Content-Type': MULTIPART,
      'Content-Length': String(15 * MiB),
    };
    const refused = await open(server.port);
    refused.socket.write(head('POST', '/_import/incarca', server.port, headers));
    refused.socket.write(PART);
    const answer = await refused.answerWithin(3_000);
    expect(answer?.status).toBe(403);
    expect(answer!.body).toContain(CATALOG.NEAUTORIZAT_CSRF.problema);
    // Nor after it: the connection is closed, instead of its 15 MiB being read to keep it alive.
    expect(answer!.head.toLowerCase()).toContain('connection: close');
    expect(await refused.closedWithin(2_000)).not.toBeNull();
    refused.socket.destroy();

    // With its token the upload is admitted and its body is read: no answer before it arrives.
    const taken = await open(server.port);
    taken.socket.write(head('POST', '/_import/incarca', server.port, { ...headers, 'X-CSRF-Token': b.csrf()! }));
    taken.socket.write(PART);
    expect(await taken.answerWithin(1_000)).toBeNull();
    taken.socket.destroy();
  });
});

describe('a body that keeps the server waiting', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen({ GATEWAY_BODY_TIMEOUT_S: '2' });
  });
  afterAll(() => server.close());

  it('one byte a second: cut after GATEWAY_BODY_TIMEOUT_S with 408 CORP_PREA_LENT, while another client is served', async () => {
    const slow = await open(server.port);
    slow.socket.write(head('POST', '/login', server.port, { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '1000' }));
    const drip = setInterval(() => slow.socket.writable && slow.socket.write('a'), 1_000);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const other = await fetch(`http://127.0.0.1:${server.port}/login`);
      expect(other.status).toBe(200);
      const closedAfter = await slow.closedWithin(8_000);
      expect(closedAfter).not.toBeNull();
      expect(closedAfter!).toBeGreaterThan(1_500);
      expect(closedAfter!).toBeLessThan(5_000);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(slow.received()).toContain(CATALOG.CORP_PREA_LENT.problema);
    } finally {
      clearInterval(drip);
    }
    expect((await fetch(`http://127.0.0.1:${server.port}/login`)).status).toBe(200);
  });

  it('a body that keeps coming (2 KiB a second for 4 s) is not cut', async () => {
    const steady = await open(server.port);
    const body = `{"x":"${'y'.repeat(8 * 1024 - 8)}"}`;
    steady.socket.write(head('POST', '/v1/prezentari/valideaza', server.port, { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': String(body.length) }));
    for (let at = 0; at < body.length; at += 2048) {
      steady.socket.write(body.slice(at, at + 2048));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const answer = await steady.answerWithin(3_000);
    expect(answer?.status).toBe(422);
    steady.socket.destroy();
  });
});

describe('a client told to wait (429)', () => {
  // 429 on /limitat, with the Retry-After the app's limits give; anything else answered.
  const refusing = (req: Request) => (new URL(req.url).pathname === '/limitat' ? new Response('{}', { status: 429, headers: { 'Retry-After': '5' } }) : new Response('ok'));

  /** Sends `first`, then `second` on the same connection as soon as the first is answered: ms until the second's answer. */
  async function secondAnswerAfter(port: number, first: string, second: string): Promise<{ statuses: number[]; ms: number }> {
    const c = await open(port);
    try {
      c.socket.write(head('GET', first, port, {}));
      const answered = await c.answerWithin(2_000);
      const started = performance.now();
      c.socket.write(head('GET', second, port, {}));
      for (; performance.now() - started < 3_000; await new Promise((resolve) => setTimeout(resolve, 10))) {
        const statuses = [...c.received().matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => Number(m[1]));
        if (statuses.length === 2) return { statuses, ms: performance.now() - started };
      }
      return { statuses: [answered?.status ?? 0], ms: Number.POSITIVE_INFINITY };
    } finally {
      c.socket.destroy();
    }
  }

  it('is answered at once, and its connection is not read again for a second; other connections are served meanwhile', async () => {
    const server = await listen({}, refusing);
    try {
      const paused = secondAnswerAfter(server.port, '/limitat', '/limitat');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Another client, while the first one's connection waits.
      expect(await secondAnswerAfter(server.port, '/altceva', '/altceva')).toMatchObject({ statuses: [200, 200] });
      const again = await paused;
      expect(again.statuses).toEqual([429, 429]);
      expect(again.ms).toBeGreaterThan(900);
      // After an answer that is not a refusal, the next request is read at once.
      expect((await secondAnswerAfter(server.port, '/altceva', '/altceva')).ms).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });

  /** A new connection from `localAddress` asking for `path`: its status, and ms from its connection to its answer. */
  async function fresh(port: number, path: string, localAddress = '127.0.0.1') {
    const c = await open(port, localAddress);
    const started = performance.now();
    c.socket.write(head('GET', path, port, { Connection: 'close' }));
    const answer = await c.answerWithin(3_000);
    c.socket.destroy();
    return { status: answer?.status ?? 0, ms: performance.now() - started };
  }

  it('a 429 that closes its connection: the address’s new connections wait a second, not one it holds, nor another address’s; a 422 makes none wait', async () => {
    const server = await listen({}, (req) => (new URL(req.url).pathname === '/gresit' ? new Response('{}', { status: 422 }) : refusing(req)));
    try {
      // A neighbour behind the same address, its connection opened before the refusal.
      const held = await open(server.port);
      expect(await fresh(server.port, '/limitat')).toMatchObject({ status: 429 });
      const heldAt = performance.now();
      held.socket.write(head('GET', '/altceva', server.port, {}));
      expect((await held.answerWithin(3_000))?.status).toBe(200);
      expect(performance.now() - heldAt).toBeLessThan(500);
      held.socket.destroy();
      const [same, other] = await Promise.all([fresh(server.port, '/altceva'), fresh(server.port, '/altceva', '127.0.0.2')]);
      expect(same.status).toBe(200);
      expect(same.ms).toBeGreaterThan(700);
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(500);
      // Once the wait is over, and after a refusal that is not a 429 (its body was read), nothing waits.
      expect((await fresh(server.port, '/gresit')).status).toBe(422);
      expect((await fresh(server.port, '/altceva')).ms).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });

  it('a refusal that leaves a large body unread and closes: the address’s next connections wait; past the address’s cap, the next is refused at once', async () => {
    const server = await listen({ GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '2' });
    try {
      const c = await open(server.port);
      c.socket.write(head('POST', '/v1/prezentari', server.port, { 'X-API-Key': 'gw_gresita', 'Content-Type': 'application/json', 'Content-Length': String(14 * MiB) }));
      c.socket.write(`{"vin":"${'x'.repeat(64 * 1024)}`);
      expect((await c.answerWithin(3_000))?.status).toBe(401);
      expect(await c.closedWithin(2_000)).not.toBeNull();
      const waiting = [fresh(server.port, '/login'), fresh(server.port, '/login')];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = await open(server.port);
      const refused = await third.answerWithin(500);
      expect(refused?.status).toBe(429);
      expect(JSON.parse(refused!.body)).toMatchObject({ cod: 'PREA_MULTE_CONEXIUNI' });
      for (const answer of await Promise.all(waiting)) {
        expect(answer.status).toBe(200);
        expect(answer.ms).toBeGreaterThan(700);
      }
      third.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it('behind a trusted proxy, whose connection carries other clients: never paused', async () => {
    const server = await listen({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1' }, refusing);
    try {
      const next = await secondAnswerAfter(server.port, '/limitat', '/altceva');
      expect(next.statuses).toEqual([429, 200]);
      expect(next.ms).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });
});

describe('connections of one client address', () => {
  it('past GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: 429 PREA_MULTE_CONEXIUNI with Retry-After at once, then held unread until it and closed; another address is served', async () => {
    const server = await listen({ GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '5', GATEWAY_KEEPALIVE_TIMEOUT_S: '2' });
    try {
      const held = await Promise.all(Array.from({ length: 5 }, () => open(server.port)));
      const extra = await open(server.port);
      const answer = await extra.answerWithin(500);
      expect(answer?.status).toBe(429);
      expect(Number(/retry-after: *(\d+)/i.exec(answer!.head)?.[1])).toBe(2);
      expect(JSON.parse(answer!.body)).toMatchObject({ cod: 'PREA_MULTE_CONEXIUNI', problema: CATALOG.PREA_MULTE_CONEXIUNI.problema });
      // A client that ignores the answer and asks again on the same socket is not read: no
      // second answer, and no reconnection for it to make until its Retry-After.
      extra.socket.write(head('GET', '/login', server.port, {}));
      const closedAfter = await extra.closedWithin(3_500);
      expect(closedAfter).toBeGreaterThan(1_800);
      expect(extra.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);

      const elsewhere = await open(server.port, '127.0.0.2');
      elsewhere.socket.write(head('GET', '/login', server.port, { Connection: 'close' }));
      expect((await elsewhere.answerWithin(3_000))?.status).toBe(200);

      // The held connections are served, and once one goes the address may open another.
      held[0]!.socket.write(head('GET', '/login', server.port, {}));
      expect((await held[0]!.answerWithin(3_000))?.status).toBe(200);
      held[1]!.socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      // A refused connection makes the address's next one wait for nothing.
      const again = await open(server.port);
      const openedAt = performance.now();
      again.socket.write(head('GET', '/login', server.port, { Connection: 'close' }));
      expect((await again.answerWithin(3_000))?.status).toBe(200);
      expect(performance.now() - openedAt).toBeLessThan(500);
      for (const c of held) c.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it('refused connections held take no place of GATEWAY_MAX_CONNECTIONS; past as many held, a refused one is closed at once', async () => {
    const server = await listen({ GATEWAY_MAX_CONNECTIONS: '3', GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '1' });
    const sockets: Array<Awaited<ReturnType<typeof open>>> = [];
    try {
      sockets.push(await open(server.port, '127.0.0.9'));
      const refused = [];
      for (let i = 0; i < 4; i++) {
        const c = await open(server.port, '127.0.0.9');
        sockets.push(c);
        expect((await c.answerWithin(1_000))?.status).toBe(429);
        refused.push(c);
      }
      // Three held, unread; the fourth past them, closed.
      const closed = await Promise.all(refused.map((c) => c.closedWithin(300)));
      expect(closed.map((ms) => ms !== null)).toEqual([false, false, false, true]);
      // Two other addresses are served beside the three held refusals: they fill the cap of 3 with the first.
      const others = await Promise.all(['127.0.0.10', '127.0.0.11'].map((address) => open(server.port, address)));
      sockets.push(...others);
      for (const c of others) {
        c.socket.write(head('GET', '/login', server.port, {}));
        expect((await c.answerWithin(3_000))?.status).toBe(200);
      }
      // The cap itself still holds: a fourth connection served is closed unanswered.
      const fourth = await open(server.port, '127.0.0.12');
      sockets.push(fourth);
      expect(await fourth.closedWithin(1_000)).not.toBeNull();
      expect(fourth.received()).toBe('');
    } finally {
      for (const c of sockets) c.socket.destroy();
      await server.close();
    }
  });

  it('behind a trusted proxy: the cap counts each forwarded address’s requests in progress, not the proxy’s connections', async () => {
    const server = await listen({ GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '2', GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const waiting = (forwarded: string) =>
        head('POST', '/login', server.port, { 'X-Forwarded-For': forwarded, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '100' });
      // Two requests of one client in progress (their bodies not sent yet), on two of the proxy's connections.
      const held = await Promise.all([open(server.port), open(server.port)]);
      for (const c of held) c.socket.write(waiting('10.0.0.1, 198.51.100.7'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const third = await open(server.port);
      third.socket.write(waiting('198.51.100.7'));
      const answer = await third.answerWithin(2_000);
      expect(answer?.status).toBe(429);
      expect(answer!.head).toMatch(/retry-after: *\d+/i);
      expect(answer!.body).toContain(CATALOG.PREA_MULTE_CONEXIUNI.problema);

      // Another client behind the same proxy, on a fourth connection from the proxy's address.
      const other = await open(server.port);
      other.socket.write(head('GET', '/login', server.port, { 'X-Forwarded-For': '198.51.100.8' }));
      expect((await other.answerWithin(3_000))?.status).toBe(200);
      for (const c of [...held, third, other]) c.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it('a peer that is not a trusted proxy has its connections capped, whatever X-Forwarded-For it claims', async () => {
    const server = await listen({ GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '2', GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const held = await Promise.all([open(server.port, '127.0.0.9'), open(server.port, '127.0.0.9')]);
      const third = await open(server.port, '127.0.0.9');
      third.socket.write(head('GET', '/login', server.port, { 'X-Forwarded-For': '198.51.100.77' }));
      expect((await third.answerWithin(2_000))?.status).toBe(429);
      for (const c of [...held, third]) c.socket.destroy();
    } finally {
      await server.close();
    }
  });
});
