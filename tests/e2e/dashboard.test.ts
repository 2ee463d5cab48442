import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { serveOnLoopback } from '../helpers/serve';
import { makeSubmission } from '../helpers/factories';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Real Chromium through the dashboard: sign-in, the list and its polling pause, the detail
// panel and its actions, filters in the URL, sign-out. Set E2E_SCREENSHOTS=<dir> to keep a
// screenshot of each screen.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let user: { email: string };
let key: string;
const ids: Record<string, number> = {};

/** Headless tabs always report visible: the hidden state is stubbed, as a background tab would set it. */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate(`Object.defineProperty(document, 'hidden', { value: ${hidden}, configurable: true }); document.dispatchEvent(new Event('visibilitychange'))`);

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const accountId = await t.createAccount('Service Ionescu');
  key = await t.createKey(accountId);
  user = await makeUser(t, accountId, { email: 'maria@service-ionescu.ro' });
  const post = async (name: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission(body) });
    ids[name] = Number(((await res.json()) as { submission_id: number }).submission_id);
  };
  await post('queued', { nrInm: 'B100AAA' });
  await post('mapping', { nrInm: 'CJ22BBB', prestatii: [{ cod_op_service: 'SCH-ULEI-X', denumire: 'Schimb ulei' }], on_unmapped_error: false });
  await post('data', { nrInm: 'IS33CCC', vin: 'WDB1234561A65432' });
  // Another account's submission: never on this user's screens.
  const other = await t.createAccount('Alt service');
  await t.call('POST', '/v1/prezentari', { key: await t.createKey(other), body: makeSubmission({ nrInm: 'TM99ZZZ' }) });

  server = await serveOnLoopback(t.app.fetch);
  base = server.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('the dashboard in Chromium', () => {
  it('signs in, lists, pauses polling for the panel and a hidden page, acts, filters, signs out', async () => {
    const { page, problems } = browser;
    await page.clock.install();
    const polls: Request[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/_fragments/coada') && r.headers()['x-poll']) polls.push(r);
    });

    // A wrong password first: one message, the e-mail kept.
    await page.goto(`${base}/`);
    await expect.poll(() => page.url()).toBe(`${base}/login`);
    await shot(page, '01-login');
    await page.fill('#email', user.email);
    await page.fill('#parola', 'parola-gresita-de-tot');
    await page.click('button[type=submit]');
    await page.waitForSelector('.notice.error');
    expect(await page.inputValue('#email')).toBe(user.email);
    await shot(page, '02-login-error');
    await page.fill('#parola', PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/`);

    // "De rezolvat": the held submissions, oldest first; nothing of the other account.
    const rows = page.locator('#coada tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('id')).toBe(`t-${ids.mapping}`);
    expect(await page.content()).not.toContain('TM99ZZZ');
    expect(await page.locator('#coada .chips a[aria-current="true"]').textContent()).toContain('De rezolvat');
    await shot(page, '03-trimiteri');

    // Polling: a poll every 5 s, answered 304 while nothing changed.
    await page.clock.runFor(5_500);
    await expect.poll(() => polls.length).toBeGreaterThanOrEqual(1);
    const answer = await polls.at(-1)!.response();
    await page.clock.runFor(5_500);
    await expect.poll(() => polls.length).toBeGreaterThanOrEqual(2);
    expect((await polls.at(-1)!.response())?.status()).toBe(304);
    expect(answer).not.toBeNull();

    // A change arrives while the reader sits on a row: the list grows, focus stays on that row.
    await page.locator(`#t-${ids.data} button`).focus();
    const arrived = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ nrInm: 'AG44DDD', vin: 'SHORTVIN' }) });
    const newId = Number(((await arrived.json()) as { submission_id: number }).submission_id);
    await page.clock.runFor(5_500);
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.evaluate('document.activeElement?.closest("tr")?.id')).toBe(`t-${ids.data}`);
    await t.call('DELETE', `/v1/prezentari/${newId}`, { key });
    await page.clock.runFor(5_500);
    await expect.poll(() => rows.count()).toBe(2);

    // The detail panel, opened from the keyboard; polling pauses while it is open.
    await page.locator(`#t-${ids.data} button`).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#panou .panel');
    expect(await page.locator('#panou').textContent()).toContain('VIN-ul nu este valid');
    await shot(page, '04-panou-date');
    const before = polls.length;
    await page.clock.runFor(16_000);
    expect(polls.length).toBe(before);
    expect(await page.evaluate('document.activeElement?.id')).toBe('panou-titlu');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#panou .panel').count()).toBe(0);
    // Back on the row the panel was opened from.
    expect(await page.evaluate('document.activeElement?.closest("tr")?.id')).toBe(`t-${ids.data}`);

    // A hidden page does not poll either.
    await setHidden(page, true);
    await page.clock.runFor(1_000);
    const hidden = polls.length;
    await page.clock.runFor(16_000);
    expect(polls.length).toBe(hidden);
    await setHidden(page, false);

    // Requeue of a still-unmapped submission: refused, shown as a notice in the panel.
    await page.click(`#t-${ids.mapping} button`);
    await page.waitForSelector('#panou .panel');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#panou button:has-text("Repune în coadă")');
    await page.waitForSelector('#panou .notice.error');
    expect(await page.locator('#panou .notice.error').textContent()).toContain('SCH-ULEI-X');
    await shot(page, '05-panou-409');

    // Delete behind the confirmation; the list refreshes without it.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#panou button:has-text("Șterge")');
    await page.waitForSelector('#panou .notice.ok');
    await expect.poll(() => rows.count()).toBe(1);
    await page.keyboard.press('Escape');

    // A search by plate, kept in the URL; it survives a reload.
    await page.click('#coada .chips a:has-text("Toate")');
    await expect.poll(() => page.url()).toContain('vedere=toate');
    // A slow answer: the list is marked busy until it is in.
    await page.route('**/_fragments/coada?*cauta=*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.continue();
    });
    await page.fill('input[name=cauta]', 'b 100-aaa');
    await page.click('#filtre button[type=submit]');
    await expect.poll(() => page.locator('#coada').getAttribute('aria-busy')).toBe('true');
    await expect.poll(() => page.url()).toContain('cauta=b+100-aaa');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.locator('#coada').getAttribute('aria-busy')).toBeNull();
    await page.unrouteAll();
    await page.reload();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('B100AAA');
    await shot(page, '06-cautare');

    for (const [i, tab] of ['Mapări', 'Jurnal', 'Cont', 'Integrare'].entries()) {
      await page.click(`.top nav a:has-text("${tab}")`);
      await expect.poll(() => page.locator('h1').textContent()).toContain(tab === 'Cont' ? 'Contul' : tab);
      await shot(page, `0${7 + i}-${tab.toLowerCase()}`);
    }

    await page.click('.top nav a:has-text("Trimiteri")');
    await page.click('button:has-text("Ieșire")');
    await page.waitForURL(`${base}/login`);
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/login`);
    expect(problems).toEqual([]);
  }, 90_000);
});

describe('the dashboard under a host name (no Sec-Fetch-Site over plain HTTP)', () => {
  it('signs in and acts: the Origin check accepts its own site', async () => {
    const named = await launchChromium(['--host-resolver-rules=MAP gateway.test 127.0.0.1']);
    try {
      const { page, problems } = named;
      const site = base.replace('127.0.0.1', 'gateway.test');
      await signIn(page, site, user.email, PASSWORD);
      await page.click(`#t-${ids.data} button`);
      await page.waitForSelector('#panou .panel');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.click('#panou button:has-text("Șterge")');
      await page.waitForSelector('#panou .notice.ok');
      expect(problems).toEqual([]);
    } finally {
      await named.close();
    }
  }, 60_000);
});
