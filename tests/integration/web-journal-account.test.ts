import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

let t: TestApp;
let accountId: number;
let otherId: number;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  accountId = await t.createAccount('Service Popescu');
  otherId = await t.createAccount('Alt service');
  await t.createKey(accountId);
  const ev = (account: number | null, event: string, level: string, requestId: string, data: unknown) =>
    t.ctx.sql`INSERT INTO app_events (account_id, event, level, request_id, data) VALUES (${account}, ${event}, ${level}, ${requestId}, ${JSON.stringify(data)}::jsonb)`;
  await ev(accountId, 'submission_deleted', 'info', 'req-mine-1', { from: 'error' });
  await ev(accountId, 'worker_after_login_failed', 'warn', 'req-mine-2', { error: 'x' });
  await ev(otherId, 'submission_deleted', 'info', 'req-alt-1', { secret_of_other: 'nu-se-vede' });
  for (let i = 0; i < 120; i++) await ev(accountId, 'api_prezentari', 'info', `req-bulk-${i}`, { i });
});
afterAll(() => t.close());

describe('journal screen', () => {
  it('a user sees only their account, with filters by event, level, request and date; keyset pages', async () => {
    const b = browser(t);
    await b.login((await makeUser(t, accountId)).email);
    const all = await (await b.get('/jurnal')).text();
    expect(all).not.toContain('nu-se-vede');
    expect(all).toContain('Mai vechi');
    const older = /href="\/jurnal\?inainte=(\d+)"/.exec(all)?.[1];
    const page2 = await (await b.get(`/jurnal?inainte=${older}`)).text();
    expect(page2).toContain('submission_deleted');

    const byEvent = await (await b.get('/jurnal?eveniment=submission_deleted')).text();
    expect(byEvent.match(/<tr class="lvl-/g)).toHaveLength(1);
    expect(await (await b.get('/jurnal?nivel=warn')).text()).toContain('worker_after_login_failed');
    expect(await (await b.get('/jurnal?cerere=req-alt-1')).text()).toContain('Niciun eveniment');
    expect(await (await b.get('/jurnal?de_la=2000-01-01&pana_la=2000-01-02')).text()).toContain('Niciun eveniment');
    const bad = await b.get('/jurnal?eveniment=DROP%20TABLE&nivel=panica');
    expect(bad.status).toBe(422);
    expect(await bad.text()).not.toContain('DROP TABLE');
  });

  it('shows what an event holds as text: markup in its data or request id is escaped, and the request link still filters', async () => {
    const hostileRequest = 'req-"><img src=x onerror=alert(1)>&x';
    await t.ctx.sql`INSERT INTO app_events (account_id, event, level, request_id, data)
      VALUES (${accountId}, 'api_import', 'info', ${hostileRequest}, ${JSON.stringify({ sheet: '</code><script>alert(2)</script>' })}::jsonb)`;
    const b = browser(t);
    await b.login((await makeUser(t, accountId)).email);
    const page = await (await b.get('/jurnal?eveniment=api_import')).text();
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;/code&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    const link = /<a href="(\/jurnal\?cerere=[^"]+)"/.exec(page)?.[1];
    const byRequest = await (await b.get(link!.replaceAll('&amp;', '&'))).text();
    expect(byRequest.match(/<tr class="lvl-/g)).toHaveLength(1);
    expect(byRequest).toContain('api_import');
  });

  it('an admin sees every account', async () => {
    const b = browser(t);
    await b.login((await makeUser(t, accountId, { admin: true })).email);
    expect(await (await b.get('/jurnal?eveniment=submission_deleted')).text()).toContain('nu-se-vede');
  });
});

describe('account screen', () => {
  it('shows key prefixes only; credentials set and removed, never shown back; CSRF on each form', async () => {
    const b = browser(t);
    await b.login((await makeUser(t, accountId)).email);
    const before = await (await b.get('/cont')).text();
    expect(before).toMatch(/gw_[A-Za-z0-9_-]{6}…/);
    expect(before).toContain('Nesetate');
    expect((await b.post('/cont/creds', { username: 'atelier', password: 'parola-registru-secreta', _csrf: 'fals' })).status).toBe(403);
    expect((await b.post('/cont/creds', { username: '', password: '' })).status).toBe(422);
    const saved = await b.post('/cont/creds', { username: 'atelier', password: 'parola-registru-secreta' });
    expect(saved.status).toBe(303);
    const after = await (await b.get(saved.headers.get('location')!)).text();
    expect(after).toContain('au fost salvate');
    expect(after).toMatch(/Setate la \d{2}\.\d{2}\.\d{4}/);
    expect(after).not.toContain('parola-registru-secreta');
    const [row] = await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(String(row?.reg_creds_enc)).not.toContain('parola-registru-secreta');

    const removed = await b.htmx('POST', '/cont/creds/sterge');
    expect(removed.headers.get('hx-redirect')).toBe('/cont?mesaj=creds_sterse');
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`)[0]?.reg_creds_enc).toBeNull();
  });

  it('another account’s user changes only their own account', async () => {
    const b = browser(t);
    await b.login((await makeUser(t, otherId)).email);
    await b.get('/cont');
    await b.post('/cont/creds', { username: 'alt', password: 'alta-parola' });
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`)[0]?.reg_creds_enc).toBeNull();
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE id = ${otherId}`)[0]?.reg_creds_enc).not.toBeNull();
  });
});
