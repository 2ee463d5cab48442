import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accountAlerts } from '../../src/services/accounts/alerts';
import { saveRegCredentials } from '../../src/services/accounts/reg-creds';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 18: the account's banners, the requeue of login-refused errors with new credentials,
// and the on_unmapped_error default, through the services and the dashboard's routes.

let t: TestApp;
let accountId: number;
let otherId: number;
let key: string;
let otherKey: string;
let user: { id: number; email: string };
let b: ReturnType<typeof browser>;

async function submit(k: string): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission() });
  return Number(((await res.json()) as { submission_id: number }).submission_id);
}
const regError = (cod: string) => JSON.stringify({ cod, problema: 'p', cauza: 'c', fix: 'f' });
async function withCause(id: number, status: string, cod: string) {
  await t.ctx.sql`UPDATE submissions SET status = ${status}, reg_error = ${regError(cod)}::jsonb WHERE id = ${id}`;
}
async function loginEvent(account: number, outcome: string, at: string, extra: Record<string, unknown> = {}) {
  await t.ctx.sql`INSERT INTO app_events (ts, account_id, event, level, data)
    VALUES (${at}::timestamptz, ${account}, 'rar_login', 'warn', ${JSON.stringify({ outcome, ...extra })}::jsonb)`;
}

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  accountId = await t.createAccount('Service Ionescu');
  otherId = await t.createAccount('Alt service');
  key = await t.createKey(accountId);
  otherKey = await t.createKey(otherId);
  user = await makeUser(t, accountId, { email: 'maria@service.ro' });
  b = browser(t);
  await b.login(user.email);
  await b.get('/');
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.ctx.sql`DELETE FROM submissions`;
  await t.ctx.sql`DELETE FROM app_events WHERE event = 'rar_login'`;
  await t.ctx.sql`UPDATE accounts SET reg_creds_enc = NULL, reg_creds_set_at = NULL, on_unmapped_error_default = 0`;
});

describe('accountAlerts', () => {
  it('counts the account’s credential waits and login refusals only, and names the refusal until a later login succeeds', async () => {
    for (let i = 0; i < 3; i++) await withCause(await submit(key), 'queued', 'REG_CREDENTIALE_LIPSA');
    for (let i = 0; i < 2; i++) await withCause(await submit(key), 'error', 'REG_LOGIN_RESPINS');
    await withCause(await submit(key), 'error', 'REG_EROARE_SERVER');
    await withCause(await submit(otherKey), 'error', 'REG_LOGIN_RESPINS');
    await loginEvent(otherId, 'rejected', '2026-11-24T10:00:00Z');
    expect(await accountAlerts({ ctx: t.ctx, actor: { kind: 'dev', accountId } })).toEqual({
      hasCredentials: false,
      waitingForCredentials: 3,
      refusedAtLogin: 2,
      loginRefused: null,
    });

    await loginEvent(accountId, 'rejected', '2026-11-24T10:05:00Z', { http_status: 401, mesaj_registru: 'Utilizator sau parolă greșită' });
    const refused = await accountAlerts({ ctx: t.ctx, actor: { kind: 'dev', accountId } });
    expect(refused.loginRefused).toEqual({ at: new Date('2026-11-24T10:05:00Z'), cauza: 'HTTP 401: Utilizator sau parolă greșită' });
    await loginEvent(accountId, 'ok', '2026-11-24T10:10:00Z');
    expect((await accountAlerts({ ctx: t.ctx, actor: { kind: 'dev', accountId } })).loginRefused).toBeNull();
  });

  it('every signed-in page shows the banners with the time in Bucharest, and links to Cont', async () => {
    await withCause(await submit(key), 'queued', 'REG_CREDENTIALE_LIPSA');
    await withCause(await submit(key), 'error', 'REG_LOGIN_RESPINS');
    await loginEvent(accountId, 'rejected', '2026-11-24T10:05:00Z', { http_status: 401 });
    for (const path of ['/', '/mapari', '/jurnal', '/cont', '/integrare', '/nu-exista']) {
      const html = await (await b.get(path)).text();
      expect(html, path).toContain('Registrul a refuzat autentificarea la 24.11.2026 12:05');
      expect(html, path).toContain('O trimitere așteaptă credențialele registrului');
      expect(html, path).toContain('href="/cont#creds"');
    }
    // A fragment htmx swaps into a page carries no banner (and costs no query for it).
    expect(await (await b.get('/_fragments/coada')).text()).not.toContain('Registrul a refuzat');
  });
});

describe('new credentials and the errors a refused login left', () => {
  it('the Cont form offers the requeue with the count; saving requeues exactly those, in the save, journaled with the user', async () => {
    const refused = [await submit(key), await submit(key)];
    for (const id of refused) await withCause(id, 'error', 'REG_LOGIN_RESPINS');
    const otherCause = await submit(key);
    await withCause(otherCause, 'error', 'REG_EROARE_SERVER');
    const foreign = await submit(otherKey);
    await withCause(foreign, 'error', 'REG_LOGIN_RESPINS');
    await loginEvent(accountId, 'rejected', '2026-11-24T10:05:00Z', { http_status: 401 });

    const cont = await (await b.get('/cont')).text();
    expect(cont).toContain('Repune în coadă cele 2 trimiteri refuzate la autentificare');
    expect(cont).toMatch(/name="repune_refuzate" value="1" checked/);
    expect(cont).toContain('refuzată de registru');

    const saved = await b.post('/cont/creds', { username: 'atelier', password: 'parola-noua-corecta', repune_refuzate: '1' });
    expect(saved.status).toBe(303);
    const after = await (await b.get(saved.headers.get('location')!)).text();
    expect(after).toContain('2 trimiteri refuzate la autentificare au fost repuse în coadă');
    // Saved after the refusal: the banner no longer blames the credentials just typed.
    expect(after).not.toContain('Registrul a refuzat autentificarea la');

    const rows = await t.ctx.sql<{ id: string; status: string }[]>`SELECT id, status FROM submissions ORDER BY id`;
    const status = new Map(rows.map((r) => [Number(r.id), r.status]));
    expect(refused.map((id) => status.get(id))).toEqual(['queued', 'queued']);
    expect(status.get(otherCause)).toBe('error');
    expect(status.get(foreign)).toBe('error');

    await t.ctx.journal.flush();
    const events = await t.ctx.sql<{ event: string; data: Record<string, unknown> }[]>`
      SELECT event, data FROM app_events WHERE account_id = ${accountId} AND event IN ('creds_rar_salvate', 'submission_requeued') ORDER BY id`;
    expect(events.map((e) => e.event)).toEqual(['creds_rar_salvate', 'submission_requeued', 'submission_requeued']);
    expect(events.every((e) => e.data.actor === `utilizator:${user.id}`)).toBe(true);
    expect(JSON.stringify(events)).not.toContain('atelier');
    expect(JSON.stringify(events)).not.toContain('parola-noua');

    const journal = await (await b.get('/jurnal?eveniment=creds_rar_salvate')).text();
    expect(journal).toContain('credențiale registru salvate');
    expect(journal).toContain('de maria@service.ro');
  });

  it('without the box nothing is requeued; a refused save (blank) requeues nothing and stores nothing', async () => {
    const id = await submit(key);
    await withCause(id, 'error', 'REG_LOGIN_RESPINS');
    await b.get('/cont');
    expect((await b.post('/cont/creds', { username: '', password: '', repune_refuzate: '1' })).status).toBe(422);
    expect((await b.post('/cont/creds', { username: 'a', password: 'b', repune_refuzate: '<script>' })).status).toBe(422);
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status).toBe('error');
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`)[0]?.reg_creds_enc).toBeNull();
    const saved = await b.post('/cont/creds', { username: 'a', password: 'b' });
    expect(saved.headers.get('location')).toBe('/cont?mesaj=creds_salvate');
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status).toBe('error');
  });

  it('the requeue and the credentials are one transaction: a requeue that fails leaves the old credentials', async () => {
    const id = await submit(key);
    await withCause(id, 'error', 'REG_LOGIN_RESPINS');
    // Makes the requeue's UPDATE fail after the credentials' UPDATE ran in the same transaction.
    await t.ctx.sql`ALTER TABLE submissions ADD CONSTRAINT requeue_test_guard CHECK (NOT (status = 'queued' AND reg_error ->> 'cod' = 'REG_LOGIN_RESPINS')) NOT VALID`;
    try {
      const actor = { kind: 'user' as const, accountId, userId: user.id, admin: false };
      await expect(saveRegCredentials({ ctx: t.ctx, actor, creds: { username: 'a', password: 'b' }, requestId: 'r', requeueLoginRefused: true })).rejects.toThrow();
    } finally {
      await t.ctx.sql`ALTER TABLE submissions DROP CONSTRAINT requeue_test_guard`;
    }
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status).toBe('error');
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`)[0]?.reg_creds_enc).toBeNull();
  });
});

describe('on_unmapped_error default', () => {
  it('is changed from Cont, journaled with who, and decides a request that does not say', async () => {
    const cont = await (await b.get('/cont')).text();
    expect(cont).toContain('action="/cont/coduri-nemapate"');
    expect(cont).toMatch(/value="0" checked/);
    for (const bad of [{} as Record<string, string>, { respinge: '' }, { respinge: '2' }, { respinge: '<b>1</b>' }, { respinge: '1'.repeat(5000) }]) {
      const res = await b.post('/cont/coduri-nemapate', bad);
      expect(res.status).toBe(422);
      expect(await res.text()).not.toContain('<b>1</b>');
    }
    expect((await t.ctx.sql`SELECT on_unmapped_error_default AS v FROM accounts WHERE id = ${accountId}`)[0]?.v).toBe(0);

    const saved = await b.post('/cont/coduri-nemapate', { respinge: '1' });
    expect(saved.headers.get('location')).toBe('/cont?mesaj=nemapate_respinse');
    expect(await (await b.get('/cont?mesaj=nemapate_respinse')).text()).toMatch(/value="1" checked/);
    expect((await t.ctx.sql`SELECT on_unmapped_error_default AS v FROM accounts WHERE id = ${accountId}`)[0]?.v).toBe(1);
    expect((await t.ctx.sql`SELECT on_unmapped_error_default AS v FROM accounts WHERE id = ${otherId}`)[0]?.v).toBe(0);

    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ prestatii: [{ cod_op_service: 'NEMAPAT-1', denumire: 'Ceva' }] }) });
    const body = await res.text();
    expect(body, body).toContain('COD_NEMAPAT');

    await t.ctx.journal.flush();
    const [event] = await t.ctx.sql<{ data: Record<string, unknown> }[]>`SELECT data FROM app_events WHERE event = 'cont_on_unmapped_error' ORDER BY id DESC LIMIT 1`;
    expect(event?.data).toEqual({ on_unmapped_error_default: 1, actor: `utilizator:${user.id}` });
  });
});
