import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { exportBytes, readSemicolonCsv } from '../helpers/csv';

let t: TestApp;
let key: string;
let accountId: number;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
  otherKey = await t.createKey(await t.createAccount('Altul'));
});
afterAll(() => t.close());

describe('durable registry credentials', () => {
  it('are stored encrypted, reported by ping, never echoed, and wake waiting submissions', async () => {
    const id = (await json(await t.call('POST', '/v1/prezentari', { key, body: makeSubmission() }))).submission_id as number;
    await t.ctx.sql`UPDATE submissions SET next_attempt_at = now() + interval '1 hour' WHERE id = ${id}`;
    const res = await t.call('POST', '/v1/conturi/reg-creds', { key, body: { username: 'svc', password: 'P@rola-Durabila' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('P@rola');
    expect(JSON.parse(text)).toEqual({ are_creds_rar: true, repuse_in_coada: 0 });
    const [account] = await t.ctx.sql<{ reg_creds_enc: string }[]>`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(account!.reg_creds_enc).not.toContain('P@rola');
    expect(JSON.parse(t.ctx.keyring.decrypt(account!.reg_creds_enc))).toEqual({ username: 'svc', password: 'P@rola-Durabila' });
    const [row] = await t.ctx.sql`SELECT next_attempt_at FROM submissions WHERE id = ${id}`;
    expect(row?.next_attempt_at).toBeNull();
    expect((await json(await t.call('GET', '/v1/ping', { key }))).are_creds_rar).toBe(true);
    expect((await json(await t.call('GET', '/v1/ping', { key: otherKey }))).are_creds_rar).toBe(false);

    expect(await json(await t.call('DELETE', '/v1/conturi/reg-creds', { key }))).toEqual({ are_creds_rar: false });
    expect((await json(await t.call('GET', '/v1/ping', { key }))).are_creds_rar).toBe(false);
  });

  it('a wrong body is a 422', async () => {
    expect((await t.call('POST', '/v1/conturi/reg-creds', { key, body: { username: 'x' } })).status).toBe(422);
    expect((await t.call('POST', '/v1/conturi/reg-creds', { key, body: 'null' })).status).toBe(422);
  });
});

describe('GET /v1/audit/export', () => {
  it('streams the account CSV with purge_after and without the image; filters by status and dates', async () => {
    const auditKey = await t.createKey(await t.createAccount('Audit'));
    const a = (await json(await t.call('POST', '/v1/prezentari', { key: auditKey, body: makeSubmission({ b64Image: 'SU1BR0lORQ==', dataPrestatie: '2025-02-01' }) })))
      .submission_id as number;
    const b = (await json(await t.call('POST', '/v1/prezentari', { key: auditKey, body: makeSubmission({ dataPrestatie: '2025-03-01' }) }))).submission_id as number;
    await t.ctx.sql`UPDATE submissions SET status = 'sent', registry_id = '98765', motiv = '=HYPERLINK("x")' WHERE id = ${a}`;
    await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission({ vin: 'WVWZZZ1JZXW999999' }) });

    const res = await t.call('GET', '/v1/audit/export', { key: auditKey });
    expect(res.headers.get('content-type')).toContain('text/csv');
    const lines = readSemicolonCsv((await exportBytes(res)).text);
    expect(lines[0]).toContain('purge_after');
    expect(lines[0]).not.toContain('b64Image');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('98765');
    expect(lines[1]).toContain(`'=HYPERLINK("x")`);
    expect(lines.join()).not.toContain('SU1BR0lORQ');

    const read = async (query: string) => readSemicolonCsv((await exportBytes(await t.call('GET', `/v1/audit/export${query}`, { key: auditKey }))).text);
    expect((await read('?status=all')).map((l) => l[0])).toEqual(['submission_id', String(a), String(b)]);
    const march = await read('?status=all&date_from=2025-03-01&date_to=2025-03-31');
    expect(march).toHaveLength(2);
    expect(march.join()).not.toContain('WVWZZZ1JZXW999999');
  });

  it('exports a row with a NULL account to account 1 only', async () => {
    const accountOneKey = await t.createKey(1);
    const id = (await json(await t.call('POST', '/v1/prezentari', { key: accountOneKey, body: makeSubmission({ vin: 'WVWZZZ1JZXW000777' }) }))).submission_id as number;
    await t.ctx.sql`UPDATE submissions SET account_id = NULL WHERE id = ${id}`;
    const exported = async (k: string) => readSemicolonCsv((await exportBytes(await t.call('GET', '/v1/audit/export?status=all', { key: k }))).text).map((l) => l[0]);
    expect(await exported(accountOneKey)).toContain(String(id));
    expect(await exported(key)).not.toContain(String(id));
  });

  it('writes every column as a Romanian reader expects it: days dd.mm.yyyy, instants in Bucharest time, summer time included', async () => {
    const account = await t.createAccount('Export coloane');
    const columnsKey = await t.createKey(account);
    const [row] = await t.ctx.sql<{ id: string }[]>`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, registry_id, motiv,
        created_at, updated_at, sent_at, purge_after)
      VALUES (${account}, 'sent', '{"odometruInitial": 87400, "odometruFinal": 87520}'::jsonb, 'WDB1234561A654321', 'B123ABC', '2025-02-01', 'export-coloane',
        '[{"cod_prestatie": "OE-3"}, {"cod_prestatie": "OE-7"}]'::jsonb, '[]'::jsonb, '98765', 'Înregistrat',
        '2025-07-01 09:30:15.654321+00', now(), '2025-12-31 22:59:59.999+00', '2026-03-29 01:00:00+00')
      RETURNING id::text`;
    const lines = readSemicolonCsv((await exportBytes(await t.call('GET', '/v1/audit/export', { key: columnsKey }))).text);
    expect(lines[1]).toEqual([
      row!.id,
      'sent',
      'WDB1234561A654321',
      'B123ABC',
      '01.02.2025',
      '87400',
      '87520',
      'OE-3;OE-7',
      '98765',
      'Înregistrat',
      '',
      '',
      // 09:30 UTC in July is 12:30 in Bucharest (UTC+3); New Year's Eve 22:59 UTC is already
      // the next year there (UTC+2); 01:00 UTC on 29 March 2026 is the hour summer time starts.
      '01.07.2025 12:30:15',
      '01.01.2026 00:59:59',
      '29.03.2026 04:00:00',
    ]);
  });

  it('an export of more rows than one fetch has every row once, in order', async () => {
    const bulkAccount = await t.createAccount('Export mare');
    const bulkKey = await t.createKey(bulkAccount);
    // Past two fetches of the cursor (1,000 rows each) and not a multiple of the 100 written a turn.
    await t.ctx.sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, created_at, updated_at)
      SELECT ${bulkAccount}, 'sent', '{}'::jsonb, 'WDB' || lpad(i::text, 14, '0'), 'B' || lpad(i::text, 6, '0') || 'X', '2025-01-01', 'export-mare-' || i,
        '[]'::jsonb, '[]'::jsonb, now(), now()
      FROM generate_series(1, 2_350) AS i`;
    const ids = await t.ctx.sql<{ id: string }[]>`SELECT id::text FROM submissions WHERE account_id = ${bulkAccount} ORDER BY submissions.id`;
    const lines = readSemicolonCsv((await exportBytes(await t.call('GET', '/v1/audit/export', { key: bulkKey }))).text);
    expect(lines.slice(1).map((l) => l[0])).toEqual(ids.map((r) => r.id));
  });

  it('rejects bad parameters with a 422', async () => {
    expect((await t.call('GET', '/v1/audit/export?status=maybe', { key })).status).toBe(422);
    expect((await t.call('GET', '/v1/audit/export?date_from=yesterday', { key })).status).toBe(422);
  });
});

describe('health, metrics, OpenAPI', () => {
  it('/healthz reports the worker fields and the queue size: 503 degradat without a live worker, 200 ok with one', async () => {
    const down = await t.call('GET', '/healthz');
    expect(down.status).toBe(503);
    expect(await json(down)).toMatchObject({ status: 'degradat', worker_alive: false, last_registry_login: null, queue_size: expect.any(Number) });
    await t.ctx.sql`INSERT INTO worker_state (worker_id, heartbeat_at, last_registry_login) VALUES ('w1', now(), now())`;
    const up = await t.call('GET', '/healthz');
    expect(up.status).toBe(200);
    expect(await json(up)).toMatchObject({ status: 'ok', worker_alive: true, last_registry_login: expect.any(String) });
  });

  it('/healthz names every worker of the deployment seen in the last hour, alive or not, whoever started it', async () => {
    await t.ctx.sql`DELETE FROM worker_state`;
    await t.ctx.sql`INSERT INTO worker_state (worker_id, heartbeat_at) VALUES
      ('host-a-1', now()), ('host-b-2', now() - interval '5 minutes'), ('host-c-3', now() - interval '2 hours')`;
    const body = (await json(await t.call('GET', '/healthz'))) as { worker_alive: boolean; workers: Array<{ id: string; alive: boolean; last_heartbeat: string }> };
    expect(body.worker_alive).toBe(true);
    expect(body.workers.map((w) => [w.id, w.alive])).toEqual([
      ['host-a-1', true],
      ['host-b-2', false],
    ]);
    expect(Date.parse(body.workers[1]!.last_heartbeat)).toBeLessThan(Date.now() - 4 * 60_000);
  });

  it('/metrics is Prometheus text with queue depth', async () => {
    await t.call('GET', '/v1/ping', { key });
    const text = await (await t.call('GET', '/metrics')).text();
    expect(text).toContain('gateway_http_requests_total');
    expect(text).toMatch(/gateway_submissions_by_status\{status="queued"\} \d+/);
  });

  it('/openapi.json is OpenAPI 3.1 generated from the request schemas, and /docs renders it locally', async () => {
    const doc = await json(await t.call('GET', '/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    const paths = doc.paths as Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }; parameters?: Array<{ name: string }> }>
    >;
    const body = paths['/v1/prezentari']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['vin', 'nrInm', 'dataPrestatie', 'prestatii', 'reg_credentials', 'on_unmapped_error']));
    expect(body.required).toEqual(expect.arrayContaining(['vin', 'prestatii']));
    expect(paths['/v1/prezentari']!.get!.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(['status', 'limit', 'cursor', 'account_id']));
    const page = await (await t.call('GET', '/docs')).text();
    expect(page).not.toMatch(/https?:\/\//);
    expect((await t.call('GET', '/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
    expect((await t.call('GET', '/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });
});
