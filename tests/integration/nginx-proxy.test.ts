import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { limitServer, serverOptions } from '../../src/http/server-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { missingPrograms } from '../helpers/programs';
import { waitFor } from '../helpers/worker';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 34: the gateway behind Debian's nginx with a self-signed certificate, configured with
// the very block docs/operations-proxy.md gives. Clients reach nginx from several loopback
// addresses (127.0.0.2, 127.0.0.3, ...), nginx reaches the gateway from 127.0.0.1, the one
// trusted proxy: what the gateway limits per address is each client, whatever it claims.

const missing = missingPrograms('the TLS reverse proxy test (tests/integration/nginx-proxy.test.ts)', { nginx: 'nginx', openssl: 'openssl' });

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'metrici-token-de-test-lung-0123456789';

/** The nginx block of the operations page, pointed at this test's ports and certificate. */
function documentedConfig(ports: { https: number; http: number; gateway: number }, cert: string, key: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'operations-proxy.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/operations-proxy.md has no ```nginx block');
  const replacements: Array<[string, string]> = [
    ['server 127.0.0.1:3000;', `server 127.0.0.1:${ports.gateway};`],
    ['listen 80;', `listen 127.0.0.1:${ports.http};`],
    ['listen 443 ssl;', `listen 127.0.0.1:${ports.https} ssl;`],
    ['/etc/ssl/gateway/fullchain.pem', cert],
    ['/etc/ssl/gateway/privkey.pem', key],
  ];
  let config = block;
  for (const [from, to] of replacements) {
    if (!config.includes(from)) throw new Error(`docs/operations-proxy.md: the nginx block no longer has "${from}"`);
    config = config.replace(from, to);
  }
  return config;
}

type Answer = { status: number; headers: IncomingHttpHeaders; body: string };

let dir: string;
let t: TestApp;
let gateway: Server;
let nginx: ChildProcess | undefined;
let nginxOutput = '';
let ports: { https: number; http: number; gateway: number };
let ca: Buffer;

/** A request to nginx over TLS (or to `port` in plain HTTP), from the loopback address `from`. */
function call(path: string, options: { from: string; method?: string; headers?: Record<string, string>; body?: string; plainPort?: number }): Promise<Answer> {
  const { from, method = 'GET', headers = {}, body, plainPort } = options;
  const send = plainPort ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: '127.0.0.1',
        port: plainPort ?? ports.https,
        path,
        method,
        headers: body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        localAddress: from,
        ...(plainPort ? {} : { ca, servername: 'localhost' }),
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const base = () => `https://127.0.0.1:${ports.https}`;

describe.skipIf(missing.length > 0)('behind nginx with TLS, as docs/operations-proxy.md configures it', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
    ports = { https: await freePort(), http: await freePort(), gateway: 0 };
    t = await startTestApp({
      ...FAST_SCRYPT,
      GATEWAY_TRUSTED_PROXIES: '127.0.0.1',
      GATEWAY_PUBLIC_URL: `https://127.0.0.1:${ports.https}`,
      GATEWAY_AUTH_FAILURES_PER_MIN: '3',
      GATEWAY_METRICS_TOKEN: TOKEN,
    });
    gateway = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1', serverOptions: serverOptions(t.ctx.config) }) as Server;
    limitServer(gateway, t.ctx.config);
    await new Promise((resolve) => gateway.once('listening', resolve));
    ports.gateway = (gateway.address() as AddressInfo).port;

    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', ...subject, '-keyout', key, '-out', cert], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    ca = readFileSync(cert);
    writeFileSync(join(dir, 'gateway.conf'), documentedConfig(ports, cert, key));
    // Debian's nginx.conf around the page's block, with this test's own paths.
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        process.getuid?.() === 0 ? 'user root;' : '',
        'daemon off;',
        'worker_processes 1;',
        `pid ${join(dir, 'nginx.pid')};`,
        'error_log stderr warn;',
        'events { worker_connections 256; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`),
        `  include ${join(dir, 'gateway.conf')};`,
        '}',
      ].join('\n'),
    );
    nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stdout!.on('data', (d: Buffer) => (nginxOutput += d.toString()));
    nginx.stderr!.on('data', (d: Buffer) => (nginxOutput += d.toString()));
    await waitFor(async () => (await call('/healthz', { from: '127.0.0.1' }).catch(() => undefined)) !== undefined || undefined, 15_000, `nginx to answer:\n${nginxOutput}`);
  });

  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await new Promise<void>((resolve) => gateway?.close(() => resolve()));
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('failed authentications count per client nginx saw: a client cannot escape its limit by claiming addresses, and another client is not locked out', async () => {
    const failure = (from: string, claimed: string) => call('/v1/ping', { from, headers: { 'X-API-Key': 'gw_nu-exista-deloc', 'X-Forwarded-For': claimed } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await failure('127.0.0.2', `198.51.100.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await failure('127.0.0.3', '198.51.100.9')).status).toBe(401);
  });

  it('a client reaching the gateway directly, not through a trusted proxy, has its X-Forwarded-For ignored', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call('/v1/ping', { from: '127.0.0.4', plainPort: ports.gateway, headers: { 'X-API-Key': 'gw_nu-exista-deloc', 'X-Forwarded-For': `203.0.113.${i}` } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('cookies are Secure and __Host-, every answer has HSTS, and a sign-in and its redirects stay on https', async () => {
    for (const path of ['/login', '/v1/ping', '/healthz', '/nu-exista']) {
      expect((await call(path, { from: '127.0.0.5' })).headers['strict-transport-security'], path).toBe('max-age=31536000');
    }
    const page = await call('/login', { from: '127.0.0.5' });
    const cookies = page.headers['set-cookie'] ?? [];
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/^__Host-[^;]+;.*;\s*Secure/i);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const cookie = cookies.map((c) => c.split(';')[0]).join('; ');

    const accountId = await t.createAccount();
    const { email } = await makeUser(t, accountId);
    const signIn = await call('/login', {
      from: '127.0.0.5',
      method: 'POST',
      headers: { Origin: base(), Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email, parola: PASSWORD }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(new URL(signIn.headers.location as string, base()).protocol).toBe('https:');
    const session = (signIn.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-gw_sesiune='));
    expect(session).toMatch(/;\s*Secure/i);
    const home = await call('/', { from: '127.0.0.5', headers: { Cookie: session!.split(';')[0]! } });
    expect(home.status).toBe(200);

    const signedOut = await call('/', { from: '127.0.0.5' });
    expect(signedOut.status).toBe(303);
    expect(new URL(signedOut.headers.location as string, base()).protocol).toBe('https:');
    // Plain HTTP on the proxy's port 80 is sent to https.
    const plain = await call('/login', { from: '127.0.0.5', plainPort: ports.http });
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toMatch(/^https:\/\/127\.0\.0\.1\/login$/);
  });

  it('/metrics through the proxy needs the token; /healthz tells a stranger only whether the service works', async () => {
    const refused = await call('/metrics', { from: '127.0.0.6' });
    expect(refused.status).toBe(401);
    expect(refused.body).not.toContain('gateway_');
    const scraped = await call('/metrics', { from: '127.0.0.6', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('gateway_submissions_by_status');

    await t.ctx.sql`INSERT INTO worker_state (worker_id, heartbeat_at, last_registry_login) VALUES ('gazda-secreta-4242-abcd', now(), now())`;
    const anonymous = await call('/healthz', { from: '127.0.0.6' });
    expect(anonymous.status).toBe(200);
    expect(JSON.parse(anonymous.body)).toEqual({ status: 'ok', database: true, worker_alive: true });
    const detailed = JSON.parse((await call('/healthz', { from: '127.0.0.6', headers: { Authorization: `Bearer ${TOKEN}` } })).body);
    expect(detailed).toMatchObject({ queue_size: expect.any(Number), last_registry_login: expect.any(String), workers: [{ id: 'gazda-secreta-4242-abcd', alive: true }] });
  });
});
