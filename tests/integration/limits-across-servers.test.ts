import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secondServer, startTestApp, type TestApp } from '../helpers/app';

// Two servers on one database (two contexts and apps, as two processes would have): the
// per-key request limit, the failed-authentication limit per address and the sign-in limit
// per e-mail hold for both together (http/window-sync.ts), once each server has written its
// hits (every 100 ms; flushed by hand here, so the test does not wait on the timer).

let a: TestApp;
let b: ReturnType<typeof secondServer>;
let key: string;
const ENV = { GATEWAY_KEY_REQUESTS_PER_MIN: '10', GATEWAY_AUTH_FAILURES_PER_MIN: '6', GATEWAY_LOGIN_FAILURES_PER_EMAIL: '4', GATEWAY_SCRYPT_N: '1024' };

beforeAll(async () => {
  a = await startTestApp(ENV);
  b = secondServer(a, ENV);
  key = await a.createKey(await a.createAccount('Două servere'));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const ping = (app: { request: (path: string, init: RequestInit) => Response | Promise<Response> }, k: string) => app.request('/v1/ping', { headers: { 'X-API-Key': k } });
/** Both servers write, then read again what the other wrote (as the next 100 ms tick would). */
const sync = async () => {
  for (let i = 0; i < 2; i++) await Promise.all([a.ctx.windows.flush(), b.ctx.windows.flush()]);
};

describe('limits across two servers', () => {
  it('a key gets GATEWAY_KEY_REQUESTS_PER_MIN requests from both servers together, not from each', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ping(a.app, key)).status);
    await sync();
    // B learns A's six with its own first hit's write.
    statuses.push((await ping(b.app, key)).status);
    await sync();
    for (let i = 0; i < 4; i++) statuses.push((await ping(b.app, key)).status);
    await sync();
    statuses.push((await ping(a.app, key)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    const refused = await ping(b.app, key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it('failed authentications from one address count on both servers; the table keeps no address or key', async () => {
    const bad = (app: typeof b.app) => app.request('/v1/ping', { headers: { 'X-API-Key': 'gw_nu-exista-deloc', 'X-Forwarded-For': '203.0.113.9' } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await bad(a.app)).status);
    await sync();
    statuses.push((await bad(b.app)).status);
    await sync();
    for (let i = 0; i < 3; i++) statuses.push((await bad(b.app)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    const rows = await a.ctx.sql<{ scope: string; key: string; count: number }[]>`SELECT scope, key, count FROM rate_windows`;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('wrong passwords for one e-mail count on both servers toward its lock-out', async () => {
    const { createSignInLimits } = await import('../../src/web/login/limits');
    const onA = createSignInLimits(a.ctx.config, a.ctx.windows);
    const onB = createSignInLimits(b.ctx.config, b.ctx.windows);
    const attempt = (i: number) => ({ address: `198.51.100.${i}`, email: 'maria@service.ro', device: null });
    // Four wrong passwords for one e-mail, two on each server, from four addresses.
    for (let i = 0; i < 2; i++) expect(onA.admit(attempt(i)).admitted).toBe(true);
    await sync();
    for (let i = 2; i < 4; i++) expect(onB.admit(attempt(i)).admitted).toBe(true);
    await sync();
    // The fifth, on either server, is the e-mail's lock-out.
    const fifth = onA.admit(attempt(5));
    expect(fifth.admitted).toBe(false);
    expect(onB.admit(attempt(6)).admitted).toBe(false);
  });
});
