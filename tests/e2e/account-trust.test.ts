import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { saveRegCredentials } from '../../src/services/accounts/reg-creds';
import type { RunningWorker } from '../../worker/runner';
import type { TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';

// Issue 18 in Chromium, with the worker and the simulated registry: a mistyped registry
// password turns the sends into errors; every page says so with the time; Cont shows the
// refused login and requeues them with the new credentials in one step; a send the registry
// refused for its content is corrected in the panel; the attempts and the journal read in
// Romanian with who acted; on_unmapped_error changes; an unknown page is a page. At 1366 and
// 390 px; E2E_SCREENSHOTS=<dir> keeps a screenshot of each screen.

let h: WorkerHarness;
let worker: RunningWorker;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let user: { email: string };
let contentId: number;
const refusedIds: number[] = [];

const WIDE = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The screen as the phone shows it (the top of a long page), beside the full-page shot. */
async function screenShot(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** Nothing wider than the screen: the page never scrolls sideways. */
const sideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

beforeAll(async () => {
  h = await startWorkerHarness(FAST_SCRYPT);
  worker = await h.start();
  const accountId = await h.createAccount('Service Ionescu', { username: 'alt', password: 'secret' });
  user = await makeUser({ ctx: h.app } as TestApp, accountId, { email: 'maria@service-ionescu.ro' });

  // The registry refuses one record's content (HTTP 400 to the send).
  h.sim.state.setFaults({ send: { status: 400, cod: 'CONTINUT_INVALID', mesaj: 'dataPrestatie: în afara perioadei de raportare', times: 1 } });
  contentId = (await h.submit(accountId, { vin: 'WDB1234561A400001', nrInm: 'B10CON', reg_credentials: null })).id;
  await h.waitForStatus(contentId, 'error');
  h.sim.state.reset();

  // Then a clerk mistypes the password: every send fails at the registry's login.
  await saveRegCredentials({ ctx: h.app, actor: { kind: 'dev', accountId }, creds: { username: 'alt', password: 'gresita' }, requestId: 'req-typo' });
  for (const [i, vin] of ['WDB1234561A400011', 'WDB1234561A400012', 'WDB1234561A400013'].entries()) {
    refusedIds.push((await h.submit(accountId, { vin, nrInm: `B1${i}LOG`, reg_credentials: null })).id);
  }
  for (const id of refusedIds) await h.waitForStatus(id, 'error');
  await h.app.journal.flush();

  server = await serveOnLoopback(createApp(h.app).fetch);
  base = server.base;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await worker?.stop();
  await h?.close();
});

const signInAsUser = (page: Page) => signIn(page, base, user.email, PASSWORD);

describe('trusting the account in Chromium', () => {
  it('a refused login is named on every page; new credentials requeue its errors in one step', async () => {
    const { page } = browser;
    await page.setViewportSize(WIDE);
    await signInAsUser(page);
    const banner = page.locator('.banners .banner.error');
    for (const path of ['/', '/mapari', '/jurnal', '/integrare']) {
      await page.goto(`${base}${path}`);
      expect(await banner.textContent(), path).toMatch(/Registrul a refuzat autentificarea la \d{2}\.\d{2}\.\d{4} \d{2}:\d{2}/);
      expect(await banner.textContent(), path).toContain('3 trimiteri sunt în eroare din acest motiv');
    }
    await page.goto(`${base}/`);
    await shot(page, '01-banner-trimiteri-1366');
    await page.setViewportSize(PHONE);
    await shot(page, '02-banner-trimiteri-390');
    await page.setViewportSize(WIDE);

    await page.click('.banners a:has-text("Cont")');
    await page.waitForURL(`${base}/cont#creds`);
    expect(await page.locator('#creds').textContent()).toContain('refuzată de registru');
    const box = page.locator('#reg-requeue');
    expect(await box.isChecked()).toBe(true);
    expect(await page.locator('label[for=reg-requeue]').textContent()).toContain('Repune în coadă cele 3 trimiteri refuzate la autentificare');
    await shot(page, '03-cont-refuzat-1366');
    await page.setViewportSize(PHONE);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await shot(page, '04-cont-refuzat-390');
    await page.setViewportSize(WIDE);

    await page.fill('#reg-user', 'alt');
    await page.fill('#reg-pass', 'secret');
    await page.click('#creds button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.locator('.notice.ok').textContent()).toContain('3 trimiteri refuzate la autentificare au fost repuse în coadă');
    expect(await banner.count()).toBe(0);
    await shot(page, '05-cont-salvat');
    for (const id of refusedIds) await h.waitForStatus(id, 'sent');
    await page.reload();
    expect(await page.locator('#creds').textContent()).toContain('reușită');
    expect(await banner.count()).toBe(0);
  }, 90_000);

  it('the registry refused the content: the panel corrects it in the clerk’s words, keeping what was typed', async () => {
    const { page } = browser;
    await page.setViewportSize(WIDE);
    await page.goto(`${base}/`);
    await page.click(`#t-${contentId} button`);
    await page.waitForSelector('#panou .panel form.correct');
    const panel = page.locator('#panou');
    expect(await panel.textContent()).toContain('conținut respins');
    expect(await panel.locator('table.attempts').textContent()).toContain('refuzată de registru');
    expect(await panel.textContent()).not.toMatch(/\bdataPrestatie\b/);
    expect(await page.inputValue('#corectie-dataPrestatie')).toMatch(/^\d{2}\.\d{2}\.\d{4}$/);
    await shot(page, '06-panou-corectie-1366');

    await page.fill('#corectie-nrInm', 'B10NOU');
    await page.fill('#corectie-dataPrestatie', '31.02.2025');
    await page.click('#panou form.correct button[type=submit]');
    await page.waitForSelector('#corectie-dataPrestatie-eroare');
    expect(await page.inputValue('#corectie-dataPrestatie')).toBe('31.02.2025');
    expect(await page.inputValue('#corectie-nrInm')).toBe('B10NOU');
    expect(await page.locator('#corectie-dataPrestatie-eroare').textContent()).toContain('zz.ll.aaaa');
    await shot(page, '07-panou-corectie-refuzata-1366');
    await page.setViewportSize(PHONE);
    await shot(page, '08-panou-corectie-refuzata-390');
    await page.setViewportSize(WIDE);

    await page.fill('#corectie-dataPrestatie', '14.03.2025');
    await page.click('#panou form.correct button[type=submit]');
    await page.waitForSelector('#panou .notice.ok');
    expect(await page.locator('#panou .notice.ok').textContent()).toContain('a intrat în coadă');
    await h.waitForStatus(contentId, 'sent');
  }, 60_000);

  it('the journal in Romanian with who acted; on_unmapped_error changes; the skip link; the 404 page', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(WIDE);
    await page.goto(`${base}/cont#nemapate`);
    await page.check('#nemapate-respinge');
    await page.click('#nemapate button[type=submit]');
    await page.waitForSelector('.notice.ok');
    expect(await page.locator('.notice.ok').textContent()).toContain('este respinsă');
    expect(await page.isChecked('#nemapate-respinge')).toBe(true);
    await shot(page, '09-cont-nemapate');

    await page.goto(`${base}/jurnal`);
    const journal = await page.locator('#jurnal').textContent();
    expect(journal).toContain('credențiale registru salvate');
    expect(journal).toContain('regula codurilor nemapate schimbată');
    expect(journal).toContain('trimitere corectată');
    expect(journal).toContain('de maria@service-ionescu.ro');
    expect(journal).toContain('autentificare la registru');
    await shot(page, '10-jurnal-1366');
    await page.setViewportSize(PHONE);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await shot(page, '11-jurnal-390');
    await screenShot(page, '11b-jurnal-390-ecran');

    // The first Tab reaches the skip link, shown while focused; Enter moves to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Sari la conținut');
    await screenShot(page, '12-skip-link-390');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('continut');

    const missing = await page.goto(`${base}/nu-exista`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Pagina nu există');
    expect(await page.locator('.top nav a').count()).toBe(5);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await shot(page, '13-404-390');
    await page.setViewportSize(WIDE);
    await shot(page, '14-404-1366');
    expect(problems.filter((p) => !p.endsWith('/nu-exista'))).toEqual([]);
  }, 60_000);
});
