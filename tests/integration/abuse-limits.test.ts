import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { limitServer, serverOptions } from '../../src/http/server-limits';
import { json, startTestApp, type TestApp } from '../helpers/app';

// Issue 9, abuse limits: failed authentications per address, requests per key, aggregated
// journalling, and what a slow or greedy client may hold of the server.

describe('failed authentications per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('3,000 invalid keys: 401 up to the limit, then 429 with Retry-After; a handful of journal rows; a valid key still works', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 3000; i++) {
      const res = await t.call('GET', '/v1/ping', { key: `gw_invalid_${i}_xxxxxxxxxxxx` });
      statuses.push(res.status);
      if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);

    await t.ctx.journal.flush();
    const rows = await t.ctx.sql<{ event: string; data: Record<string, unknown> }[]>`SELECT event, data FROM app_events WHERE event LIKE 'api_auth%' ORDER BY id`;
    expect(rows.map((r) => r.event)).toEqual(['api_auth_esuat', 'api_auth_limitat']);
    expect(JSON.stringify(rows)).not.toContain('gw_invalid');

    const key = await t.createKey(await t.createAccount());
    expect((await t.call('GET', '/v1/ping', { key })).status).toBe(200);
  });

  it('X-Forwarded-For is not believed unless the peer is in GATEWAY_TRUSTED_PROXIES', async () => {
    const proxied = await startTestApp({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1', GATEWAY_AUTH_FAILURES_PER_MIN: '2' });
    try {
      const from = (address: string) => proxied.call('GET', '/v1/ping', { key: 'gw_nope_xxxxxxxxxxxx', headers: { 'X-Forwarded-For': `10.9.9.9, ${address}` } });
      expect([(await from('198.51.100.1')).status, (await from('198.51.100.1')).status, (await from('198.51.100.1')).status]).toEqual([401, 401, 429]);
      expect((await from('198.51.100.2')).status).toBe(401);
    } finally {
      await proxied.close();
    }
    // Without the setting every request of this test client is one address, whatever it claims.
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/ping', { key: 'gw_nope_xxxxxxxxxxxx', headers: { 'X-Forwarded-For': `198.51.100.${i}` } });
    expect((await t.call('GET', '/v1/ping', { key: 'gw_nope_xxxxxxxxxxxx', headers: { 'X-Forwarded-For': '198.51.100.99' } })).status).toBe(429);
  });
});

describe('requests per API key', () => {
  it('past GATEWAY_KEY_REQUESTS_PER_MIN a key gets 429 with Retry-After; another key does not', async () => {
    const t = await startTestApp({ GATEWAY_KEY_REQUESTS_PER_MIN: '5' });
    try {
      const account = await t.createAccount();
      const [busy, calm] = [await t.createKey(account), await t.createKey(account)];
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await t.call('GET', '/v1/ping', { key: busy })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const limited = await t.call('GET', '/v1/ping', { key: busy });
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await json(limited)).cod).toBe('PREA_MULTE_CERERI');
      expect((await t.call('GET', '/v1/ping', { key: calm })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('past GATEWAY_KEY_REQUESTS_PER_S a key gets 429 with Retry-After: 1 for the rest of the second, well within its minute; another key does not', async () => {
    const t = await startTestApp({ GATEWAY_KEY_REQUESTS_PER_S: '3' });
    try {
      const account = await t.createAccount();
      const [busy, calm] = [await t.createKey(account), await t.createKey(account)];
      // The key looked up once (its lookup is then cached), then six at once in a new second:
      // no database round trip between them, so all six fall in it however slow the machine.
      expect((await t.call('GET', '/v1/ping', { key: busy })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const answers = await Promise.all(Array.from({ length: 6 }, () => t.call('GET', '/v1/ping', { key: busy })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
      const limited = answers.find((a) => a.status === 429)!;
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(await json(limited)).toMatchObject({ cod: 'PREA_MULTE_CERERI', cauza: expect.stringContaining('GATEWAY_KEY_REQUESTS_PER_S') });
      expect((await t.call('GET', '/v1/ping', { key: calm })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await t.call('GET', '/v1/ping', { key: busy })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('slow and greedy clients', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const config = parseConfig({ GATEWAY_REQUEST_TIMEOUT_S: '2', GATEWAY_HEADERS_TIMEOUT_S: '1', GATEWAY_KEEPALIVE_TIMEOUT_S: '1', GATEWAY_MAX_CONNECTIONS: '3' });
    const app = new Hono().post('/', async (c) => c.text(String((await c.req.text()).length))).get('/', (c) => c.text('ok'));
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', serverOptions: serverOptions(config) }) as Server;
    limitServer(server, config);
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** A raw socket, with the time it was closed by the server (or null if it was not within `waitMs`). */
  async function closedAfter(send: (socket: Socket) => void, waitMs: number): Promise<{ ms: number | null; data: string }> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = performance.now();
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('error', () => undefined);
    send(socket);
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), waitMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.destroy();
    return { ms: closed ? performance.now() - started : null, data };
  }

  it('headers sent too slowly are cut after the headers timeout', async () => {
    const result = await closedAfter((s) => s.write('GET / HTTP/1.1\r\nHost: x\r\n'), 6_000);
    expect(result.ms).not.toBeNull();
    expect(result.ms!).toBeLessThan(4_000);
  });

  it('a body sent too slowly is cut after the request timeout', async () => {
    const result = await closedAfter((s) => {
      s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n');
      const drip = setInterval(() => (s.writable ? s.write('a') : clearInterval(drip)), 300);
      s.once('close', () => clearInterval(drip));
    }, 8_000);
    expect(result.ms).not.toBeNull();
    expect(result.ms!).toBeLessThan(6_000);
  });

  it('connections past the cap are closed at once; the server serves again when they go', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    const extra = await closedAfter(() => undefined, 2_000);
    expect(extra.ms).not.toBeNull();
    for (const s of held) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  });
});
