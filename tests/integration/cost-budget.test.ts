import { desc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../db/schema';
import { dashboardWhere, listDashboard, type DashboardFilters } from '../../src/services/submissions/dashboard';
import { json, startTestApp, type TestApp } from '../helpers/app';

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
