import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { desc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../db/schema';
import { CATALOG } from '../../src/errors';
import { dashboardWhere, listDashboard, type DashboardFilters } from '../../src/services/submissions/dashboard';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, uploadNow } from '../helpers/import-files';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { webUpload } from '../helpers/web-import';

// Issue 32: one account's costly work (large bodies, large pages, exports, pattern searches,
// re-classifying saves) is bounded per account, answered 429 with Retry-After to that account
// only; and a search of LIKE's own characters is literal and never reads the account's every row.

const payload = (i: number) => ({
  vin: `WDB1234561A${String(100_000 + i)}`,
  nrInm: 'B123ABC',
  dataPrestatie: '2025-03-14',
  odometruFinal: 100_000 + i,
  prestatii: [{ cod_prestatie: 'OE-3' }],
});

async function seed(t: TestApp, accountId: number, rows: number) {
  await t.ctx.sql`
    INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, created_at, updated_at)
    SELECT ${accountId}, 'sent', '{}'::jsonb, 'WDB' || lpad(i::text, 14, '0'), 'B' || lpad(i::text, 6, '0') || 'X', '2025-01-01', ${`seed-${accountId}-`} || i,
      '[]'::jsonb, '[]'::jsonb, now(), now()
    FROM generate_series(1, ${rows}) AS i`;
}

describe('the per-account bound on costly work', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    // A large burst: only the number in flight limits here.
    t = await startTestApp({ GATEWAY_COSTLY_PER_ACCOUNT: '2', GATEWAY_COSTLY_BURST_MS: '600000' });
    const a = await t.createAccount('Atelier A');
    const b = await t.createAccount('Atelier B');
    keyA = await t.createKey(a);
    keyB = await t.createKey(b);
    await seed(t, a, 50);
    await seed(t, b, 50);
  });
  afterAll(() => t.close());

  it('past two exports in flight the account gets 429 with Retry-After for the next costly request; another account and its simple reads are served', async () => {
    // Two exports whose bodies are not read yet: each is in flight until its last byte is read.
    const held = [await t.call('GET', '/v1/audit/export?status=all', { key: keyA }), await t.call('GET', '/v1/audit/export?status=all', { key: keyA })];
    expect(held.map((r) => r.status)).toEqual([200, 200]);

    const third = await t.call('GET', '/v1/audit/export?status=all', { key: keyA });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await json(third);
    expect(body.cod).toBe('CONT_PREA_MULTE_OPERATII');
    expect(String(body.cauza)).toContain('2 operații costisitoare');
    // A large page and a large body of the same account are costly too.
    expect((await t.call('GET', '/v1/prezentari?limit=500', { key: keyA })).status).toBe(429);
    const large = JSON.stringify({ ...payload(1), b64Image: 'A'.repeat(300 * 1024) });
    const dryRun = await t.call('POST', '/v1/prezentari/valideaza', { key: keyA, body: large, headers: { 'Content-Length': String(Buffer.byteLength(large)) } });
    expect(dryRun.status).toBe(429);

    // The account's simple reads and writes are not costly; another account's costly work goes on.
    expect((await t.call('GET', '/v1/prezentari?limit=20', { key: keyA })).status).toBe(200);
    expect((await t.call('POST', '/v1/prezentari/valideaza', { key: keyA, body: payload(2) })).status).toBe(200);
    const other = await t.call('GET', '/v1/audit/export?status=all', { key: keyB });
    expect(other.status).toBe(200);
    expect((await other.text()).split('\n').length).toBeGreaterThan(50);
    expect((await t.call('GET', '/v1/prezentari?limit=500', { key: keyB })).status).toBe(200);

    // Once the held exports are read to their end, the account's places are free again.
    for (const res of held) await res.text();
    expect((await t.call('GET', '/v1/prezentari?limit=500', { key: keyA })).status).toBe(200);
  });

  it('a list past the schema’s limit is refused (422), at the limit it is served', async () => {
    const over = await t.call('GET', '/v1/prezentari?limit=501', { key: keyB });
    expect(over.status).toBe(422);
    expect(JSON.stringify(await over.json())).toContain('limit');
    const page = await t.call('GET', '/v1/prezentari?limit=500', { key: keyB });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { items: unknown[] }).items).toHaveLength(50);
  });
});

describe('the share of the server’s time an account’s costly work may take', () => {
  it('with no burst left, the next costly request waits (429, Retry-After) while another account’s is served', async () => {
    const t = await startTestApp({ GATEWAY_COSTLY_BURST_MS: '0', GATEWAY_COSTLY_SHARE_PCT: '0.1' });
    try {
      const keyA = await t.createKey(await t.createAccount('Atelier A'));
      const keyB = await t.createKey(await t.createAccount('Atelier B'));
      const first = await t.call('GET', '/v1/prezentari?limit=200', { key: keyA });
      expect(first.status).toBe(200);
      await first.text();
      const next = await t.call('GET', '/v1/prezentari?limit=200', { key: keyA });
      expect(next.status).toBe(429);
      expect((await json(next)).cod).toBe('CONT_PREA_MULTE_OPERATII');
      expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await t.call('GET', '/v1/prezentari?limit=200', { key: keyB })).status).toBe(200);
      expect((await t.call('GET', '/v1/prezentari?limit=100', { key: keyA })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('an upload is costly work of its account', () => {
  it('past the share, the account’s next upload (API or dashboard) is 429 with Retry-After before its body is read; another account’s is taken', async () => {
    const t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_COSTLY_BURST_MS: '0', GATEWAY_COSTLY_SHARE_PCT: '0.1' });
    try {
      const a = await t.createAccount('Atelier A');
      const keyA = await t.createKey(a);
      const keyB = await t.createKey(await t.createAccount('Atelier B'));
      const file = csvFile([HEADER, ['WDB1234561A100001', 'B-1-XYZ', '14.03.2025', '', '1000', 'OE-3', 'Revizie']]);
      expect((await uploadNow(t, keyA, file, 'prima.csv')).status).toBe(201);
      // One file of two waiting: the queue would take it; the account's share of the server's time does not.
      const next = await uploadNow(t, keyA, file, 'a-doua.csv');
      expect(next.status).toBe(429);
      expect((await json(next)).cod).toBe('CONT_PREA_MULTE_OPERATII');
      expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const clerk = browser(t);
      await clerk.login((await makeUser(t, a)).email);
      await clerk.get('/');
      const fromDashboard = await webUpload(t, clerk, file, 'a-treia.csv');
      expect(fromDashboard.status).toBe(429);
      expect(Number(fromDashboard.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await fromDashboard.text()).toContain(CATALOG.CONT_PREA_MULTE_OPERATII.problema);
      expect((await uploadNow(t, keyB, file, 'alt-cont.csv')).status).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('a large body on a slow line is charged its own work, not the seconds it took to arrive', async () => {
    // A second of burst: two seconds of arrival, charged, would leave the account refused.
    const t = await startTestApp({ GATEWAY_COSTLY_BURST_MS: '1000', GATEWAY_COSTLY_SHARE_PCT: '0.1' });
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const key = await t.createKey(await t.createAccount('Atelier pe o linie înceată'));
      const body = Buffer.from(JSON.stringify({ ...payload(1), b64Image: 'A'.repeat(300 * 1024) }));
      const socket = connect({ port, host: '127.0.0.1' });
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.write(
        `POST /v1/prezentari/valideaza HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
      const pieces = 20;
      const size = Math.ceil(body.length / pieces);
      for (let i = 0; i < pieces; i++) {
        socket.write(body.subarray(i * size, (i + 1) * size));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (let waited = 0; !/\r\n\r\n\{.*\}$/s.test(received) && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
      // Admitted as costly work and answered (its image is not a photo), after two seconds of arrival.
      expect(received).toMatch(/^HTTP\/1\.1 (200|422) /);
      expect((await t.call('GET', '/v1/prezentari?limit=200', { key })).status).toBe(200);
    } finally {
      server.close();
      await t.close();
    }
  });
});

describe('the dashboard search of LIKE’s own characters', () => {
  let t: TestApp;
  let accountId: number;
  const ROWS = 20_000;
  beforeAll(async () => {
    t = await startTestApp();
    accountId = await t.createAccount('Atelier mare');
    await seed(t, accountId, ROWS);
    // A held row whose plate, as typed, has the characters searched for.
    await t.ctx.sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, created_at, updated_at)
      VALUES (${accountId}, 'needs_data', '{}'::jsonb, 'WDB12345678901234', 'B%%%12', '2025-01-01', 'held-1', '[]'::jsonb, '[]'::jsonb, now(), now())`;
    await t.ctx.sql`ANALYZE submissions`;
  });
  afterAll(() => t.close());

  const actor = () => ({ kind: 'dev' as const, accountId });
  const search = (term: string) =>
    listDashboard({ ctx: t.ctx, actor: actor(), filters: { view: 'toate', search: term }, page: { limit: 50, oldestFirst: false } }).then((p) => p.items.map((i) => i.nrInm));

  it('`%%%` finds the plate that has it, `___` and `%` nothing: the characters are literal', async () => {
    expect(await search('%%%')).toEqual(['B%%%12']);
    expect(await search('___')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('B%%%1')).toEqual(['B%%%12']);
  });

  it('its query reads the held rows, not the account’s every row', async () => {
    for (const term of ['%%%', '___']) {
      const filters: DashboardFilters = { view: 'toate', search: term };
      const query = t.ctx.db.select({ id: submissions.id }).from(submissions).where(dashboardWhere(accountId, filters)).orderBy(desc(submissions.id)).limit(50).toSQL();
      const plan = (await t.ctx.sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, query.params as never[])).map((r) => String(r['QUERY PLAN'])).join('\n');
      const removed = [...plan.matchAll(/Rows Removed by (?:Filter|Index Recheck): (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      expect(removed, plan).toBeLessThan(100);
      const started = performance.now();
      await search(term);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
