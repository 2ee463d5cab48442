import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/context';
import { saveRegCredentials, setUnmappedDefault } from '../../src/services/accounts/reg-creds';
import { setRole } from '../../src/services/users/people';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 35: the account's administrator manages its people, registry credentials and settings;
// a clerk (funcționar) does the daily work. The rules are the services' (services/roles.ts): a
// clerk's screens leave the administrator's forms out, and a forged post meets the same 403
// INTERZIS a service call does. Disabling ends every session at once; an account keeps an
// active administrator; each user sees and ends their own sessions.

let t: TestApp;
let accountId: number;
let otherAccount: number;
let admin: { id: number; email: string };
let clerk: { id: number; email: string };

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  accountId = await t.createAccount('Service Roluri');
  otherAccount = await t.createAccount('Alt service');
  admin = await makeUser(t, accountId, { email: 'sef@roluri.ro', role: 'administrator' });
  clerk = await makeUser(t, accountId, { email: 'functionar@roluri.ro', role: 'functionar' });
});
afterAll(() => t.close());

async function signedIn(email: string, userAgent?: string) {
  const b = browser(t);
  if (userAgent) {
    await b.get('/login');
    await b.post('/login', { email, parola: 'parola-de-test-lunga' }, { 'User-Agent': userAgent });
  } else {
    expect((await b.login(email)).status).toBe(303);
  }
  await b.get('/cont');
  return b;
}

const accountRow = async () => (await t.ctx.sql`SELECT reg_creds_enc, on_unmapped_error_default FROM accounts WHERE id = ${accountId}`)[0]!;

describe('a clerk', () => {
  it('sees Cont without the administrator’s forms, and no Oameni tab', async () => {
    const b = await signedIn(clerk.email);
    const cont = await (await b.get('/cont')).text();
    expect(cont).not.toContain('action="/cont/creds"');
    expect(cont).not.toContain('action="/cont/coduri-nemapate"');
    expect(cont).toContain('Le schimbă administratorul contului.');
    expect(cont).not.toContain('href="/cont/oameni"');
    expect(cont).toContain('href="/cont/sesiuni"');
    const adminCont = await (await (await signedIn(admin.email)).get('/cont')).text();
    expect(adminCont).toContain('action="/cont/creds"');
    expect(adminCont).toContain('href="/cont/oameni"');
  });

  it('opening Oameni or posting any administrator’s form is 403 INTERZIS and changes nothing', async () => {
    const b = await signedIn(clerk.email);
    const page = await b.get('/cont/oameni');
    expect(page.status).toBe(403);
    const pageText = await page.text();
    expect(pageText).toContain('Rolul dvs. în cont nu permite această acțiune.');
    expect(pageText).not.toContain(admin.email);
    const before = await accountRow();
    const forged: Array<[string, Record<string, string>]> = [
      ['/cont/creds', { username: 'u', password: 'p' }],
      ['/cont/creds/sterge', {}],
      ['/cont/coduri-nemapate', { respinge: '1' }],
      ['/cont/oameni/invita', { email: 'intrus@roluri.ro', rol: 'administrator' }],
      [`/cont/oameni/${clerk.id}/rol`, { rol: 'administrator' }],
      [`/cont/oameni/${admin.id}/dezactiveaza`, {}],
      [`/cont/oameni/${admin.id}/resetare`, {}],
    ];
    for (const [path, form] of forged) {
      const res = await b.post(path, form);
      expect(res.status, path).toBe(403);
      expect(await res.text(), path).toContain('Rolul dvs. în cont nu permite această acțiune.');
    }
    expect(await accountRow()).toEqual(before);
    const [me] = await t.ctx.sql`SELECT role FROM web_users WHERE id = ${clerk.id}`;
    expect(me!.role).toBe('functionar');
    expect(await t.ctx.sql`SELECT 1 FROM web_user_links WHERE account_id = ${accountId}`).toHaveLength(0);
    expect((await signedIn(admin.email)).cookies.size).toBeGreaterThan(0);
  });

  it('gets the same refusal from the services, while an API key keeps what the spec gives it', async () => {
    const asClerk: Actor = { kind: 'user', accountId, userId: clerk.id, admin: false, role: 'functionar' };
    await expect(saveRegCredentials({ ctx: t.ctx, actor: asClerk, creds: { username: 'u', password: 'p' }, requestId: 'r' })).rejects.toMatchObject({ cod: 'INTERZIS' });
    await expect(setUnmappedDefault({ ctx: t.ctx, actor: asClerk, reject: true, requestId: 'r' })).rejects.toMatchObject({ cod: 'INTERZIS' });
    await expect(setRole({ ctx: t.ctx, actor: asClerk, userId: clerk.id, role: 'administrator', requestId: 'r' })).rejects.toMatchObject({ cod: 'INTERZIS' });
    // Even the operator's administrator flag does not make a clerk the account's administrator.
    await expect(setRole({ ctx: t.ctx, actor: { ...asClerk, admin: true }, userId: clerk.id, role: 'administrator', requestId: 'r' })).rejects.toMatchObject({ cod: 'INTERZIS' });
    const key = await t.createKey(accountId);
    const res = await t.call('POST', '/v1/conturi/reg-creds', { key, body: { username: 'u', password: 'p' } });
    expect(res.status).toBe(200);
  });

  it('does the daily work: the import screen and Mapări open', async () => {
    const b = await signedIn(clerk.email);
    expect((await b.get('/')).status).toBe(200);
    expect((await b.get('/mapari')).status).toBe(200);
  });
});

describe('the administrator', () => {
  it('changes a role, disables (every session ends at once) and enables a colleague; another account’s user is a 404', async () => {
    const colleague = await makeUser(t, accountId, { email: 'coleg@roluri.ro', role: 'functionar' });
    const theirs = await signedIn(colleague.email);
    const a = await signedIn(admin.email);
    await a.get('/cont/oameni');

    expect((await a.post(`/cont/oameni/${colleague.id}/rol`, { rol: 'administrator' })).status).toBe(303);
    expect((await t.ctx.sql`SELECT role FROM web_users WHERE id = ${colleague.id}`)[0]!.role).toBe('administrator');
    // Their open page has the new role at its next request.
    expect(await (await theirs.get('/cont')).text()).toContain('action="/cont/creds"');
    expect((await a.post(`/cont/oameni/${colleague.id}/rol`, { rol: 'functionar' })).status).toBe(303);

    expect((await a.post(`/cont/oameni/${colleague.id}/dezactiveaza`)).status).toBe(303);
    const htmx = await theirs.get('/_fragments/coada', { 'HX-Request': 'true' });
    expect(htmx.headers.get('hx-redirect')).toBe('/login');
    expect((await browser(t).login(colleague.email)).status).toBe(401);
    const people = await (await a.get('/cont/oameni')).text();
    expect(people).toContain('dezactivat la');

    expect((await a.post(`/cont/oameni/${colleague.id}/activeaza`)).status).toBe(303);
    expect((await browser(t).login(colleague.email)).status).toBe(303);

    const stranger = await makeUser(t, otherAccount, { email: 'strain@alt.ro', role: 'functionar' });
    expect((await a.post(`/cont/oameni/${stranger.id}/dezactiveaza`)).status).toBe(404);
    expect((await t.ctx.sql`SELECT disabled_at FROM web_users WHERE id = ${stranger.id}`)[0]!.disabled_at).toBeNull();
    await t.ctx.journal.flush();
    const events = await t.ctx.sql`SELECT event, data FROM app_events WHERE event IN ('user_role_changed', 'user_disabled', 'user_enabled') ORDER BY id`;
    expect(events.map((e) => e.event)).toEqual(['user_role_changed', 'user_role_changed', 'user_disabled', 'user_enabled']);
    expect(events.every((e) => e.data.actor === `utilizator:${admin.id}`)).toBe(true);
  });

  it('cannot leave the account without an active administrator (409)', async () => {
    const lone = await t.createAccount('Service cu un singur șef');
    const only = await makeUser(t, lone, { email: 'singur@sef.ro', role: 'administrator' });
    const helper = await makeUser(t, lone, { email: 'ajutor@sef.ro', role: 'functionar' });
    const actor: Actor = { kind: 'user', accountId: lone, userId: only.id, admin: false, role: 'administrator' };
    await expect(setRole({ ctx: t.ctx, actor, userId: only.id, role: 'functionar', requestId: 'r' })).rejects.toMatchObject({ cod: 'CONFLICT_STARE' });
    const b = await signedIn(only.email);
    const res = await b.post(`/cont/oameni/${only.id}/dezactiveaza`);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('Contul trebuie să păstreze un administrator activ');
    // With a second administrator, the first may step down.
    await setRole({ ctx: t.ctx, actor, userId: helper.id, role: 'administrator', requestId: 'r' });
    await setRole({ ctx: t.ctx, actor, userId: only.id, role: 'functionar', requestId: 'r' });
  });
});

describe('sessions', () => {
  it('a user sees their devices (browser, address, last use) and ends another; never someone else’s', async () => {
    const user = await makeUser(t, accountId, { email: 'doua@roluri.ro', role: 'functionar' });
    const phone = await signedIn(user.email, 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36');
    const pc = await signedIn(user.email, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0');
    const list = await (await pc.get('/cont/sesiuni')).text();
    expect(list).toContain('Chrome pe Android');
    expect(list).toContain('Firefox pe Windows');
    expect(list).toContain('acesta');
    const [phoneSession] = await t.ctx.sql<{ id: number }[]>`SELECT id FROM web_sessions WHERE user_id = ${user.id} AND user_agent LIKE '%Android%'`;

    // Another user cannot end it: the same 404 as a missing one.
    const other = await signedIn(admin.email);
    expect((await other.post(`/cont/sesiuni/${phoneSession!.id}/inchide`)).status).toBe(404);
    expect((await phone.get('/cont')).status).toBe(200);

    expect((await pc.post(`/cont/sesiuni/${phoneSession!.id}/inchide`)).status).toBe(303);
    expect((await phone.get('/cont')).status).toBe(303);
    expect((await pc.get('/cont')).status).toBe(200);
  });
});
