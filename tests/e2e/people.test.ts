import { createServer } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER } from '../helpers/import-files';
import { startSmtpServer, type TestSmtp } from '../helpers/smtp';
import { FAST_SCRYPT } from '../helpers/web';

// Issue 35 in Chromium: a workshop signs up (by keyboard), uploads a file and invites a clerk;
// the clerk opens the e-mailed link (an SMTP server in this process receives it over
// STARTTLS), chooses a password, signs in, imports, and is refused the administrator's pages
// and forms; the clerk's forgotten password is reset on a phone through the e-mailed link and
// the old session ends; the administrator disables the clerk and the clerk's open page is
// signed out at its next request. At 1366 and 390 px; E2E_SCREENSHOTS=<dir> keeps each screen.

const WIDE = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const LOADED = { timeout: 15_000 };
const ADMIN = { email: 'ana@service-popescu.ro', password: 'parola-anei-lunga-1' };
const CLERK = { email: 'dan@service-popescu.ro', password: 'parola-lui-dan-lunga', newPassword: 'alta-parola-a-lui-dan' };

let smtp: TestSmtp;
let t: TestApp;
let base: string;
let closeServer: () => Promise<void>;
let chrome: Browser;
const problems: string[] = [];

/** A port free now, for the gateway whose e-mailed links must name it (GATEWAY_PUBLIC_URL). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A person's own browser (cookies of their own), failing the test on any page error, 404 or 5xx. */
async function person(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chrome.newContext({ locale: 'ro-RO', timezoneId: 'Europe/Bucharest', viewport });
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() === 404 || r.status() >= 500) problems.push(`${r.status()}: ${r.url()}`);
  });
  return { context, page };
}

async function shot(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

const sideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** The link of the newest e-mail to `to` (taken off the list, so the next one is found next). */
async function linkMailedTo(to: string, path: string): Promise<string> {
  const mail = await smtp.mailTo(to, 15_000);
  smtp.received.splice(smtp.received.indexOf(smtp.received.find((m) => m.to.includes(to))!), 1);
  expect(mail.secure).toBe(true);
  return smtp.linkIn(mail.text, path);
}

async function upload(page: Page, name: string) {
  const rows = [HEADER, ['WDB1234561A700001', 'B-70-POP', '14.03.2025', '', '120000', 'X-ULEI', 'Schimb ulei motor']];
  await page.setInputFiles('#fisier', { name, mimeType: 'text/csv', buffer: csvFile(rows) });
  await page.waitForURL(/\/import\/\d+$/, { timeout: 30_000 });
  await page.waitForSelector('#import');
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startTestApp({ ...FAST_SCRYPT, ...smtp.env, GATEWAY_SIGNUP: 'open', GATEWAY_PUBLIC_URL: base });
  const server = serve({ fetch: t.app.fetch, port, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  chrome = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'] });
}, 90_000);

afterAll(async () => {
  await chrome?.close();
  await closeServer?.();
  await t?.close();
  await smtp?.close();
});

describe('a workshop looks after its people, in Chromium', () => {
  let admin: Page;
  let clerk: Page;

  it('signs up by keyboard, lands on the import screen and uploads a file', async () => {
    admin = (await person()).page;
    await admin.goto(`${base}/login`);
    await shot(admin, 'p01-login');
    await admin.click('text=Înregistrați service-ul');
    await admin.waitForURL(`${base}/inregistrare`);
    // The name field has the focus; every other field is one Tab on; Enter sends the form.
    expect(await admin.evaluate('document.activeElement?.id')).toBe('nume');
    await admin.keyboard.type('Service Popescu');
    await admin.keyboard.press('Tab');
    await admin.keyboard.type('RO18547291');
    await admin.keyboard.press('Tab');
    await admin.keyboard.type(ADMIN.email);
    await admin.keyboard.press('Tab');
    await admin.keyboard.type(ADMIN.password);
    await admin.keyboard.press('Enter');
    // A wrong check digit: the form again, the CUI marked, the rest kept.
    await admin.waitForSelector('#cui[aria-invalid="true"]');
    expect(await admin.inputValue('#email')).toBe(ADMIN.email);
    await shot(admin, 'p02-inregistrare-cui-gresit');
    await admin.fill('#cui', 'RO18547290');
    await admin.fill('#parola', ADMIN.password);
    await admin.press('#parola', 'Enter');
    await admin.waitForURL(`${base}/`);
    await upload(admin, 'export-admin.csv');
  });

  it('invites a clerk, who sets a password from the e-mailed link, signs in and imports', async () => {
    await admin.goto(`${base}/cont`);
    await admin.click('nav.subnav >> text=Oameni');
    await admin.waitForURL(`${base}/cont/oameni`);
    await admin.fill('#invita-email', CLERK.email);
    expect(await admin.inputValue('#invita-rol')).toBe('functionar');
    await admin.click('#invita button[type=submit]');
    await expect.poll(() => admin.locator('.notice.ok').textContent(), LOADED).toContain('Invitația a fost trimisă');
    expect(await admin.locator('#invitatii').textContent()).toContain(CLERK.email);
    await shot(admin, 'p03-oameni-1366');

    const link = await linkMailedTo(CLERK.email, '/invitatie');
    expect(link.startsWith(`${base}/invitatie?t=`)).toBe(true);
    clerk = (await person()).page;
    await clerk.goto(link);
    expect(await clerk.locator('h1').textContent()).toBe('Bun venit în contul Service Popescu');
    await shot(clerk, 'p04-invitatie');
    await clerk.fill('#parola', CLERK.password);
    await clerk.fill('#parola2', CLERK.password);
    await clerk.click('button[type=submit]');
    await clerk.waitForURL(`${base}/`);
    // Out, and in again with the chosen password.
    await clerk.click('.who button[type=submit]');
    await clerk.waitForURL(`${base}/login`);
    await clerk.fill('#email', CLERK.email);
    await clerk.fill('#parola', CLERK.password);
    await clerk.click('button[type=submit]');
    await clerk.waitForURL(`${base}/`);
    await upload(clerk, 'export-dan.csv');
  });

  it('the clerk is shown none of the administrator’s forms, and a forged post is refused with the services’ 403', async () => {
    await clerk.goto(`${base}/cont`);
    expect(await clerk.locator('form[action="/cont/creds"]').count()).toBe(0);
    expect(await clerk.locator('nav.subnav a[href="/cont/oameni"]').count()).toBe(0);
    await shot(clerk, 'p05-cont-functionar');
    const refused = await clerk.goto(`${base}/cont/oameni`);
    expect(refused?.status()).toBe(403);
    expect(await clerk.locator('.notice.error').textContent()).toContain('Rolul dvs. în cont nu permite această acțiune.');
    await shot(clerk, 'p06-oameni-interzis');
    // Posts as a page script could make them: the session's own token, the role's refusal all the same.
    const forged = await clerk.evaluate(`(async () => {
      const token = document.querySelector('meta[name="csrf-token"]').content;
      const body = () => new URLSearchParams({ _csrf: token, username: 'u', password: 'p', email: 'x@y.ro', rol: 'administrator', respinge: '1' });
      const post = (path) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body() }).then((r) => r.status);
      return Promise.all(['/cont/creds', '/cont/oameni/invita', '/cont/coduri-nemapate'].map(post));
    })()`);
    expect(forged).toEqual([403, 403, 403]);
    expect((await t.ctx.sql`SELECT reg_creds_enc FROM accounts WHERE cui = '18547290'`)[0]!.reg_creds_enc).toBeNull();
  });

  it('a forgotten password is reset on the phone through the e-mailed link; the old session ends', async () => {
    const phone = (await person(PHONE)).page;
    await phone.goto(`${base}/login`);
    await shot(phone, 'p07-login-390');
    expect(await sideways(phone)).toBe(0);
    // By keyboard from the password field: the next stop is "Intră", then "Am uitat parola".
    await phone.focus('#parola');
    await phone.keyboard.press('Tab');
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate('document.activeElement?.textContent')).toBe('Am uitat parola');
    await phone.keyboard.press('Enter');
    await phone.waitForURL(`${base}/parola-uitata`);
    await phone.keyboard.type(CLERK.email);
    await phone.keyboard.press('Enter');
    await expect.poll(() => phone.locator('.notice.ok').textContent(), LOADED).toContain('Dacă adresa aparține unui utilizator activ');
    await shot(phone, 'p08-parola-uitata-390');
    expect(await sideways(phone)).toBe(0);

    const link = await linkMailedTo(CLERK.email, '/parola-noua');
    await phone.goto(link);
    await shot(phone, 'p09-parola-noua-390');
    expect(await sideways(phone)).toBe(0);
    await phone.fill('#parola', CLERK.newPassword);
    await phone.fill('#parola2', CLERK.newPassword);
    await phone.click('button[type=submit]');
    await phone.waitForURL(`${base}/`);

    // The desktop session of before is gone at its next request.
    await clerk.goto(`${base}/cont`);
    expect(clerk.url()).toBe(`${base}/login`);
    // The link was spent.
    const again = await phone.goto(link);
    expect(again?.status()).toBe(410);
    await phone.goto(`${base}/cont/sesiuni`);
    expect(await phone.locator('table.devices tbody tr').count()).toBe(1);
    await shot(phone, 'p10-sesiuni-390');
    expect(await sideways(phone)).toBe(0);
    clerk = phone;
  });

  it('the administrator disables the clerk: the clerk’s open page is signed out at its next request', async () => {
    await clerk.goto(`${base}/`);
    await admin.goto(`${base}/cont/oameni`);
    await admin.click(`button[aria-label="Dezactivează ${CLERK.email}"]`);
    await expect.poll(() => admin.locator('.notice.ok').textContent(), LOADED).toContain('Colegul a fost dezactivat');
    expect(await admin.locator('#oameni').textContent()).toContain('dezactivat la');
    // The submissions list polls every 5 s: its next request finds no session and loads the sign-in page.
    await clerk.waitForURL(`${base}/login`, { timeout: 20_000 });

    await admin.setViewportSize(PHONE);
    await admin.goto(`${base}/cont/oameni`);
    await shot(admin, 'p11-oameni-390');
    expect(await sideways(admin)).toBe(0);
    await admin.goto(`${base}/inregistrare`);
    expect(admin.url()).toBe(`${base}/inregistrare`);
    await admin.setViewportSize(WIDE);
    await admin.goto(`${base}/cont/sesiuni`);
    await shot(admin, 'p12-sesiuni-1366');
    expect(problems).toEqual([]);
  });
});
