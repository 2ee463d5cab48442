import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/app';
import { startSmtpServer, type TestSmtp } from '../helpers/smtp';
import { browser, FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 35: invitations and password resets are single-use links whose token is stored only
// as a hash and never journaled. Without SMTP the administrator is shown each link once; with
// it (a real SMTP server here, STARTTLS required, its certificate checked) the link is e-mailed,
// and "Am uitat parola" answers the same words for a known and an unknown address.

const NEW_PASSWORD = 'parola-noua-foarte-lunga';
const HOUR_MS = 3_600_000;

/** A clock the test moves: links expire by the context's clock. */
let now = Date.now();
const clock = () => new Date(now);

const linkOf = (html: string, path: string) => {
  const match = new RegExp(`https?://[^"\\s<]+${path}\\?t=([\\w-]+)`).exec(html);
  if (!match) throw new Error(`no ${path} link shown`);
  return { url: match[0], token: match[1]!, path: `${path}?t=${match[1]}` };
};

async function choosePassword(b: ReturnType<typeof browser>, path: string, password = NEW_PASSWORD, again = password) {
  const page = await b.get(path);
  const token = new URL(`http://x${path}`).searchParams.get('t')!;
  return { page, res: await b.post(path.split('?')[0]!, { t: token, parola: password, parola2: again }) };
}

async function journalText(t: TestApp) {
  await t.ctx.journal.flush();
  return JSON.stringify(await t.ctx.sql`SELECT event, data FROM app_events`);
}

describe('without SMTP', () => {
  let t: TestApp;
  let accountId: number;
  let admin: { id: number; email: string };

  beforeAll(async () => {
    t = await startTestApp(FAST_SCRYPT, { clock });
    accountId = await t.createAccount('Service Linkuri');
    admin = await makeUser(t, accountId, { email: 'sef@linkuri.ro', role: 'administrator' });
  });
  afterAll(() => t.close());

  async function asAdmin() {
    const a = browser(t);
    await a.login(admin.email);
    await a.get('/cont/oameni');
    return a;
  }

  it('an invitation is shown once, sets the colleague’s password with its role, and works only once', async () => {
    const a = await asAdmin();
    const invited = await a.post('/cont/oameni/invita', { email: 'Clara@Linkuri.ro', rol: 'functionar' });
    expect(invited.status).toBe(200);
    const html = await invited.text();
    expect(html).toContain('Se afișează acum o singură dată');
    const link = linkOf(html, '/invitatie');
    // Pending, and the next page no longer shows the link.
    const people = await (await a.get('/cont/oameni')).text();
    expect(people).toContain('Clara@Linkuri.ro');
    expect(people).not.toContain(link.token);
    const [row] = await t.ctx.sql`SELECT token_hash FROM web_user_links WHERE email = 'Clara@Linkuri.ro'`;
    expect(row!.token_hash).not.toContain(link.token);

    const b = browser(t);
    const mismatch = await choosePassword(b, link.path, NEW_PASSWORD, `${NEW_PASSWORD}x`);
    expect(mismatch.page.status).toBe(200);
    expect(await mismatch.page.text()).toContain('Bun venit în contul Service Linkuri');
    expect(mismatch.res.status).toBe(422);
    expect(await mismatch.res.text()).toContain('Cele două parole diferă');
    const short = await choosePassword(b, link.path, 'scurta');
    expect(short.res.status).toBe(422);

    const { res } = await choosePassword(b, link.path);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect((await b.get('/')).status).toBe(200);
    const [user] = await t.ctx.sql`SELECT account_id, role FROM web_users WHERE email = 'Clara@Linkuri.ro'`;
    expect(user).toEqual({ account_id: accountId, role: 'functionar' });

    // Reused: refused at the page and at the post.
    const again = browser(t);
    const reopened = await again.get(link.path);
    expect(reopened.status).toBe(410);
    expect(await reopened.text()).toContain('Linkul nu mai este valabil.');
    expect((await again.post('/invitatie', { t: link.token, parola: 'alta-parola-lunga-1', parola2: 'alta-parola-lunga-1' })).status).toBe(410);
    expect(await t.ctx.sql`SELECT 1 FROM web_users WHERE email = 'Clara@Linkuri.ro'`).toHaveLength(1);
    expect(await journalText(t)).not.toContain(link.token);
  });

  it('refuses an expired, a cancelled, a made-up and a cut link (410), and an address that is already a user’s (409)', async () => {
    const a = await asAdmin();
    const expired = linkOf(await (await a.post('/cont/oameni/invita', { email: 'tarziu@linkuri.ro', rol: 'functionar' })).text(), '/invitatie');
    const cancelled = linkOf(await (await a.post('/cont/oameni/invita', { email: 'anulat@linkuri.ro', rol: 'administrator' })).text(), '/invitatie');
    const [pending] = await t.ctx.sql<{ id: number }[]>`SELECT id FROM web_user_links WHERE email = 'anulat@linkuri.ro'`;
    expect((await a.post(`/cont/oameni/invitatii/${pending!.id}/anuleaza`)).status).toBe(303);
    expect((await browser(t).get(cancelled.path)).status).toBe(410);

    // 71 hours on, still good; past 72, refused.
    now += 71 * HOUR_MS;
    expect((await browser(t).get(expired.path)).status).toBe(200);
    now += 2 * HOUR_MS;
    const b = browser(t);
    expect((await b.get(expired.path)).status).toBe(410);
    expect((await choosePassword(b, expired.path)).res.status).toBe(410);
    expect(await t.ctx.sql`SELECT 1 FROM web_users WHERE email IN ('tarziu@linkuri.ro', 'anulat@linkuri.ro')`).toHaveLength(0);
    // An expired invitation is no longer pending.
    expect(await (await a.get('/cont/oameni')).text()).not.toContain('tarziu@linkuri.ro');

    // Sessions are stamped by the database's clock: back to it before signing in again.
    now = Date.now();
    expect((await browser(t).get('/invitatie?t=nu-este-un-jeton-al-nostru-deloc')).status).toBe(410);
    expect((await browser(t).get('/invitatie')).status).toBe(410);
    const taken = await (await asAdmin()).post('/cont/oameni/invita', { email: 'SEF@linkuri.ro', rol: 'functionar' });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('Există deja un utilizator cu această adresă');
  });

  it('the administrator issues a reset link; it ends every session of the user, works once, and expires in 30 minutes', async () => {
    const user = await makeUser(t, accountId, { email: 'uituc@linkuri.ro', role: 'functionar' });
    const stolen = browser(t);
    await stolen.login(user.email);
    expect((await stolen.get('/')).status).toBe(200);

    const a = await asAdmin();
    const link = linkOf(await (await a.post(`/cont/oameni/${user.id}/resetare`)).text(), '/parola-noua');
    const b = browser(t);
    const { page, res } = await choosePassword(b, link.path);
    expect(await page.text()).toContain('Alegeți o parolă nouă');
    expect(res.status).toBe(303);
    expect((await stolen.get('/')).status).toBe(303);
    expect((await b.get('/')).status).toBe(200);
    expect((await browser(t).login(user.email, PASSWORD)).status).toBe(401);
    expect((await browser(t).login(user.email, NEW_PASSWORD)).status).toBe(303);
    expect((await browser(t).get(link.path)).status).toBe(410);

    const late = linkOf(await (await a.post(`/cont/oameni/${user.id}/resetare`)).text(), '/parola-noua');
    now += 31 * 60_000;
    expect((await browser(t).get(late.path)).status).toBe(410);
    now = Date.now();
    expect(await journalText(t)).not.toMatch(new RegExp(`${link.token}|${late.token}`));
  });

  it('"Am uitat parola" without SMTP tells who issues the link, and sends nothing', async () => {
    const b = browser(t);
    const page = await b.get('/parola-uitata');
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Cereți administratorului contului');
    expect(text).not.toContain('<form');
    expect(await (await b.get('/login')).text()).toContain('href="/parola-uitata"');
  });
});

describe('with SMTP (STARTTLS)', () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let accountId: number;
  let admin: { id: number; email: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ ...FAST_SCRYPT, ...smtp.env, GATEWAY_PUBLIC_URL: 'https://gateway.service.ro', GATEWAY_RESET_PER_HOUR: '3' });
    accountId = await t.createAccount('Service Poștă');
    admin = await makeUser(t, accountId, { email: 'sef@posta.ro', role: 'administrator' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('an invitation is e-mailed over TLS, in Romanian as text and HTML, with the public address; the page never shows it', async () => {
    const a = browser(t);
    await a.login(admin.email);
    await a.get('/cont/oameni');
    const res = await a.post('/cont/oameni/invita', { email: 'dan@posta.ro', rol: 'functionar' });
    expect(res.status).toBe(303);
    const page = await (await a.get(res.headers.get('location')!)).text();
    expect(page).toContain('Invitația a fost trimisă pe e-mail.');
    expect(page).not.toContain('/invitatie?t=');
    const mail = await smtp.mailTo('dan@posta.ro');
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe('gateway');
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html; charset=utf-8/i);
    expect(mail.text).toContain('Ați fost invitat(ă) în contul Service Poștă');
    const link = smtp.linkIn(mail.text, '/invitatie');
    expect(link.startsWith('https://gateway.service.ro/invitatie?t=')).toBe(true);
    const path = link.slice('https://gateway.service.ro'.length);
    expect((await choosePassword(browser(t), path)).res.status).toBe(303);
  });

  it('"Am uitat parola": the same words for a known and an unknown address; the link works once and ends the old session', async () => {
    const user = await makeUser(t, accountId, { email: 'ioana@posta.ro', role: 'functionar' });
    const old = browser(t);
    await old.login(user.email);

    const ask = async (email: string) => {
      const b = browser(t);
      await b.get('/parola-uitata');
      const res = await b.post('/parola-uitata', { email });
      return { status: res.status, text: (await res.text()).replace(/value="[^"]*"/g, '') };
    };
    const known = await ask('Ioana@posta.ro');
    const unknown = await ask('nimeni@posta.ro');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.text).toContain('Dacă adresa aparține unui utilizator activ');
    expect(known.text).toEqual(unknown.text);

    const mail = await smtp.mailTo('ioana@posta.ro');
    expect(mail.secure).toBe(true);
    expect(mail.text).toContain('expiră în 30 de minute');
    const path = smtp.linkIn(mail.text, '/parola-noua').slice('https://gateway.service.ro'.length);
    const { res } = await choosePassword(browser(t), path);
    expect(res.status).toBe(303);
    expect((await old.get('/')).status).toBe(303);
    expect((await browser(t).get(path)).status).toBe(410);
    expect(smtp.received.some((m) => m.to.includes('nimeni@posta.ro'))).toBe(false);
    expect(await journalText(t)).not.toContain(new URL(`http://x${path}`).searchParams.get('t')!);
  });

  it('"Am uitat parola" is limited per address (429 with Retry-After)', async () => {
    const b = browser(t);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      await b.get('/parola-uitata');
      const res = await b.post('/parola-uitata', { email: `cineva${i}@posta.ro` }, { 'X-Forwarded-For': '203.0.113.9' });
      statuses.push(res.status);
      retryAfter ??= res.headers.get('retry-after');
    }
    // Earlier tests asked from this client address twice: the hour's third request is its last.
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('a server that does not offer STARTTLS gets nothing: the link is shown to the administrator instead', async () => {
    let delivered = 0;
    const cleartext = new SMTPServer({
      hideSTARTTLS: true,
      authOptional: true,
      allowInsecureAuth: true,
      logger: false,
      onData: (stream, _s, done) => {
        stream.on('end', () => {
          delivered++;
          done();
        });
        stream.resume();
      },
    });
    await new Promise<void>((resolve) => cleartext.listen(0, '127.0.0.1', resolve));
    const plain = await startTestApp({
      ...FAST_SCRYPT,
      GATEWAY_SMTP_URL: `smtp://gateway:parola-smtp@127.0.0.1:${(cleartext.server.address() as AddressInfo).port}`,
      GATEWAY_MAIL_FROM: 'gateway@test.ro',
      GATEWAY_PUBLIC_URL: 'https://gateway.service.ro',
    });
    try {
      const acc = await plain.createAccount('Service fără poștă');
      const boss = await makeUser(plain, acc, { email: 'sef@fara-posta.ro', role: 'administrator' });
      const a = browser(plain);
      await a.login(boss.email);
      await a.get('/cont/oameni');
      const res = await a.post('/cont/oameni/invita', { email: 'x@fara-posta.ro', rol: 'functionar' });
      const html = await res.text();
      expect(html).toContain('Serverul de e-mail nu a primit mesajul');
      expect(linkOf(html, '/invitatie').url.startsWith('https://gateway.service.ro/')).toBe(true);
      expect(await journalText(plain)).toContain('email_failed');
      expect(delivered).toBe(0);
    } finally {
      await plain.close();
      await new Promise<void>((resolve) => cleartext.close(() => resolve()));
    }
  });

  it('settings: SMTP without a sender or a public address stops the start', () => {
    const base = { GATEWAY_SECRET_KEY: TEST_SECRET, GATEWAY_SMTP_URL: 'smtp://localhost:587' };
    expect(() => parseConfig(base)).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, GATEWAY_MAIL_FROM: 'g@t.ro' })).toThrow(/GATEWAY_PUBLIC_URL/);
    expect(() => parseConfig({ ...base, GATEWAY_MAIL_FROM: 'g@t.ro', GATEWAY_PUBLIC_URL: 'https://g.ro' })).not.toThrow();
    expect(() => parseConfig({ GATEWAY_SMTP_URL: 'http://localhost' })).toThrow(/smtp/);
  });
});
