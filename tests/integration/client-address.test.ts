import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { clientAddressOf } from '../../src/http/client-address';
import { startTestApp, type TestApp } from '../helpers/app';

// Issue 34: one owner of the client's address (X-Forwarded-For believed only from a trusted
// proxy), and what only an operator sees (/metrics, /healthz's details). The in-process app
// is given the socket a request came from, as @hono/node-server gives it.

const TOKEN = 'metrici-token-de-test-lung-0123456789';

describe('the client address', () => {
  const config = parseConfig({ GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.10, ::1' });

  it('is the peer unless the peer is a trusted proxy; then the nearest forwarded address that is not one', () => {
    expect(clientAddressOf(config, '203.0.113.5', '198.51.100.1')).toBe('203.0.113.5');
    expect(clientAddressOf(config, '10.1.2.3', '198.51.100.1')).toBe('198.51.100.1');
    expect(clientAddressOf(config, '10.1.2.3', '6.6.6.6, 198.51.100.1')).toBe('198.51.100.1');
    // A load balancer (10.x) behind a CDN-like proxy (192.0.2.10): both skipped from the right.
    expect(clientAddressOf(config, '10.1.2.3', '6.6.6.6, 198.51.100.1, 192.0.2.10')).toBe('198.51.100.1');
    expect(clientAddressOf(config, '::ffff:10.1.2.3', '198.51.100.1')).toBe('198.51.100.1');
    expect(clientAddressOf(config, '::1', ['198.51.100.1', '2001:db8::7'])).toBe('2001:db8::7');
    expect(clientAddressOf(config, '10.1.2.3', undefined)).toBe('10.1.2.3');
    expect(clientAddressOf(config, '10.1.2.3', '10.9.9.9')).toBe('10.1.2.3');
    expect(clientAddressOf(parseConfig({}), '127.0.0.1', '198.51.100.1')).toBe('127.0.0.1');
  });

  it('GATEWAY_TRUSTED_PROXIES takes addresses and CIDR blocks only; the old GATEWAY_TRUST_PROXY is refused with its replacement named', () => {
    expect(() => parseConfig({ GATEWAY_TRUSTED_PROXIES: 'nginx.local' })).toThrow(/GATEWAY_TRUSTED_PROXIES.*nginx\.local/);
    expect(() => parseConfig({ GATEWAY_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/GATEWAY_TRUSTED_PROXIES/);
    expect(() => parseConfig({ GATEWAY_TRUST_PROXY: 'true' })).toThrow(/GATEWAY_TRUST_PROXY: înlocuit de GATEWAY_TRUSTED_PROXIES/);
    expect(parseConfig({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1, fd00::/8' }).GATEWAY_TRUSTED_PROXIES).toEqual(['127.0.0.1', 'fd00::/8']);
  });
});

describe('/metrics and /healthz', () => {
  let t: TestApp;
  let open: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ GATEWAY_METRICS_TOKEN: TOKEN, GATEWAY_TRUSTED_PROXIES: '10.0.0.1' });
    open = await startTestApp({});
    await t.ctx.sql`INSERT INTO worker_state (worker_id, heartbeat_at, last_registry_login) VALUES ('gazda-7-1234-abcd', now(), now())`;
  });
  afterAll(async () => {
    await t.close();
    await open.close();
  });

  /** A request from `peer`, as Node's server would hand it to the app. */
  const from = (app: TestApp, peer: string, path: string, headers: Record<string, string> = {}) =>
    app.app.request(path, { headers }, { incoming: { socket: { remoteAddress: peer } } });

  it('/metrics: this machine directly, or the bearer token; not another host, not through a proxy, not a wrong token', async () => {
    expect((await from(t, '127.0.0.1', '/metrics')).status).toBe(200);
    expect((await from(t, '::1', '/metrics')).status).toBe(200);
    const stranger = await from(t, '203.0.113.5', '/metrics');
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await stranger.json()).toMatchObject({ cod: 'NEAUTENTIFICAT' });
    // A proxy on this machine forwarding someone else's request, trusted or not.
    expect((await from(t, '127.0.0.1', '/metrics', { 'X-Forwarded-For': '203.0.113.5' })).status).toBe(401);
    expect((await from(t, '10.0.0.1', '/metrics', { 'X-Forwarded-For': '127.0.0.1' })).status).toBe(401);
    expect((await from(t, '203.0.113.5', '/metrics', { Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    const scraped = await from(t, '203.0.113.5', '/metrics', { Authorization: `Bearer ${TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('gateway_submissions_by_status');
    // No token configured: this machine only.
    expect((await from(open, '203.0.113.5', '/metrics', { Authorization: 'Bearer ' })).status).toBe(401);
  });

  it('/healthz: anyone learns whether it works; the queue, registry logins and worker hosts only an operator', async () => {
    const anonymous = await from(t, '203.0.113.5', '/healthz');
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: 'ok', database: true, worker_alive: true });
    for (const operator of [from(t, '127.0.0.1', '/healthz'), from(t, '203.0.113.5', '/healthz', { Authorization: `Bearer ${TOKEN}` })]) {
      expect(await (await operator).json()).toMatchObject({ queue_size: 0, last_registry_login: expect.any(String), workers: [{ id: 'gazda-7-1234-abcd' }] });
    }
  });

  it('over plain HTTP (GATEWAY_PUBLIC_URL unset or http) no HSTS and no Secure cookie', async () => {
    const page = await from(open, '203.0.113.5', '/login');
    expect(page.headers.get('strict-transport-security')).toBeNull();
    expect(page.headers.getSetCookie().join('\n')).not.toMatch(/Secure|__Host-/i);
  });
});
