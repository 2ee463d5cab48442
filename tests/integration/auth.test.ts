import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';

describe('with GATEWAY_REQUIRE_API_KEY on (default)', () => {
  let t: TestApp;
  let key: string;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestApp();
    accountId = await t.createAccount();
    key = await t.createKey(accountId);
  });
  afterAll(() => t.close());

  it('a missing key is 401 and journalled as api_auth_esuat', async () => {
    const res = await t.call('POST', '/v1/prezentari', { body: makeSubmission() });
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ status: 401, cod: 'NEAUTENTIFICAT' });
    await t.ctx.journal.flush();
    const events = await t.ctx.sql`SELECT request_id FROM app_events WHERE event = 'api_auth_esuat'`;
    expect(events.map((e) => e.request_id)).toContain(res.headers.get('x-request-id'));
  });

  it('accepts X-API-Key and Authorization: Bearer; the account comes from the key', async () => {
    const viaHeader = await json(await t.call('GET', '/v1/ping', { key }));
    const viaBearer = await json(await t.call('GET', '/v1/ping', { headers: { Authorization: `Bearer ${key}` } }));
    expect(viaHeader).toMatchObject({ account_id: accountId, autentificat_cu_cheie: true, mediu: 'sandbox', are_creds_rar: false });
    expect(viaBearer.account_id).toBe(accountId);
  });

  it.each([
    ['an unknown key', { 'X-API-Key': 'gw_not-a-real-key-000000' }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
    ['a huge key', { 'X-API-Key': 'k'.repeat(5000) }],
    ['a basic auth header', { Authorization: 'Basic dXNlcjpwYXNz' }],
  ])('%s is 401', async (_name, headers) => {
    const res = await t.call('GET', '/v1/ping', { headers });
    expect(res.status).toBe(401);
  });

  it('a revoked key stops working', async () => {
    const revokedKey = await t.createKey(accountId);
    await t.ctx.sql`UPDATE api_keys SET revoked_at = now() WHERE account_id = ${accountId} AND id = (SELECT max(id) FROM api_keys)`;
    // A fresh app has an empty key cache, as a server does 5 s after a revocation.
    const { createApp } = await import('../../src/app');
    const fresh = createApp(t.ctx);
    expect((await fresh.request('/v1/ping', { headers: { 'X-API-Key': revokedKey } })).status).toBe(401);
  });

  it('every response carries X-Request-ID; a sane incoming one is kept, an insane one replaced', async () => {
    const kept = await t.call('GET', '/v1/ping', { key, headers: { 'X-Request-ID': 'client-abc.123' } });
    expect(kept.headers.get('x-request-id')).toBe('client-abc.123');
    const replaced = await t.call('GET', '/v1/ping', { key, headers: { 'X-Request-ID': '<script>alert(1)</script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const res of [await t.call('GET', '/v1/prezentari/1', { key }), await t.call('GET', '/nope'), await t.call('POST', '/v1/prezentari', { key, body: '{' })]) {
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('an unhandled exception is a 500 envelope of six keys; the stack goes to the journal only', async () => {
    const { createApp } = await import('../../src/app');
    const app = createApp(t.ctx);
    app.get('/boom', () => {
      throw new Error('kaboom-internal-detail');
    });
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['cauza', 'cod', 'fix', 'problema', 'request_id', 'status']);
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
    expect(text).not.toContain('kaboom');
    await t.ctx.journal.flush();
    const [event] = await t.ctx.sql`SELECT data FROM app_events WHERE event = 'eroare_neprevazuta' AND request_id = ${body.request_id as string}`;
    expect(JSON.stringify(event?.data)).toContain('kaboom-internal-detail');
  });
});

describe('with GATEWAY_REQUIRE_API_KEY=false (development)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ GATEWAY_REQUIRE_API_KEY: 'false' });
  });
  afterAll(() => t.close());

  it('a request without a key acts for account 1', async () => {
    expect(await json(await t.call('GET', '/v1/ping'))).toMatchObject({ account_id: 1, autentificat_cu_cheie: false });
    const created = await json(await t.call('POST', '/v1/prezentari', { body: makeSubmission() }));
    const [row] = await t.ctx.sql`SELECT account_id FROM submissions WHERE id = ${created.submission_id as number}`;
    expect(row?.account_id).toBe(1);
  });

  it('a present but invalid key is still 401', async () => {
    expect((await t.call('GET', '/v1/ping', { key: 'gw_wrong' })).status).toBe(401);
  });
});
