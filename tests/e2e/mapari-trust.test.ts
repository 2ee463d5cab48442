import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { makeSubmission } from '../helpers/factories';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 18 §1 in Chromium, at a desktop and a phone width: save-all saves what the page shows,
// after a confirmation listing the pairs; suggestions are guesses, serious codes are never
// preselected for a wiper or a bulb; a mapping is changed with its history; text rules.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  server = await serveOnLoopback(t.app.fetch);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

/** An account of its own for each width, with the operations the screens are about. */
async function seed(width: number) {
  const accountId = await t.createAccount(`Service ${width}`);
  const key = await t.createKey(accountId);
  const user = await makeUser(t, accountId, { email: `clerk${width}@service.ro` });
  const ids: Record<string, number> = {};
  const post = async (code: string, denumire: string) => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ prestatii: [{ cod_op_service: code, denumire }], on_unmapped_error: false }) });
    ids[code] = Number(((await res.json()) as { submission_id: number }).submission_id);
  };
  await post('ULEI', 'Schimb ulei');
  await post('ULEI', 'Schimb ulei');
  await post('REV', 'Revizie periodică');
  await post('LAMELE', 'Schimb lamele ștergătoare');
  await post('BEC', 'Înlocuire bec far');
  await post('POLISH', 'Polish faruri');
  return { accountId, user, ids };
}

const mapped = async (accountId: number, code: string) =>
  (await t.ctx.sql<{ cod_prestatie: string }[]>`SELECT cod_prestatie FROM operation_mappings WHERE account_id = ${accountId} AND cod_op_service = ${code}`)[0]?.cod_prestatie;
const row = (page: Page, code: string) => page.locator('#pendinte tbody tr', { has: page.locator(`input[name=cod_op_service][value="${code}"]`) });
/**
 * A screenshot, then the empty `style` attributes Playwright's screenshot leaves on inputs
 * removed: htmx copies an element's style into its swapped-in twin, which the CSP then reports.
 */
async function look(page: Page, name: string) {
  await shot(page, name);
  await page.evaluate(`for (const e of document.querySelectorAll('[style=""]')) e.removeAttribute('style')`);
}
const noSideScroll = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

describe.each([1366, 390])('Mapări at %i px', (width) => {
  it('saves what the page shows, guards serious codes, edits a mapping, runs text rules', async () => {
    const { page, problems, context } = browser;
    const { accountId, user, ids } = await seed(width);
    await context.clearCookies();
    await page.setViewportSize({ width, height: 900 });
    page.removeAllListeners('dialog');
    page.on('dialog', (d) => d.accept());
    await signIn(page, server.base, user.email, PASSWORD);
    await page.goto(`${server.base}/mapari`);
    await page.waitForSelector('#pendinte');
    await look(page, `${width}-01-de-mapat`);
    expect(await noSideScroll(page)).toBe(true);

    // A wiper and a bulb: never an odometer code; a half-known name starts on "Alegeți codul…".
    for (const code of ['LAMELE', 'BEC']) expect(await row(page, code).locator('select').inputValue()).not.toMatch(/ODO|OE-[DFCSRAI6]$/);
    expect(await row(page, 'POLISH').locator('select').inputValue()).toBe('');
    expect(await row(page, 'POLISH').textContent()).toContain('Nu este preselectată');
    expect(await row(page, 'REV').locator('select').inputValue()).toBe('OE-3');
    expect(await row(page, 'REV').textContent()).toMatch(/probabil \(\d+ %\)/);
    // Blank cannot be saved: the browser holds the form back (the server refuses it too).
    const before = await page.locator('#mapari').innerHTML();
    await row(page, 'POLISH').locator('button[type=submit]').click();
    const blankId = await row(page, 'POLISH').locator('select').getAttribute('id');
    expect(await page.evaluate(`document.getElementById('${blankId}').validity.valueMissing`)).toBe(true);
    expect(await page.locator('#mapari').innerHTML()).toBe(before);

    // A serious code picked by hand: its confirmation appears; without it the server refuses.
    await row(page, 'LAMELE').locator('select').selectOption('I-ODO');
    await expect.poll(() => row(page, 'LAMELE').locator('[data-grav-confirm]').isVisible()).toBe(true);
    await row(page, 'LAMELE').locator('button[type=submit]').click();
    await page.waitForSelector('#mapari .notice.error');
    expect(await page.locator('#mapari .notice.error').textContent()).toContain('Codul I-ODO are consecințe legale');
    expect(await row(page, 'LAMELE').locator('select').inputValue()).toBe('I-ODO');
    await look(page, `${width}-02-cod-grav-refuzat`);
    expect(await mapped(accountId, 'LAMELE')).toBeUndefined();
    await row(page, 'LAMELE').locator('select').selectOption('');

    // The clerk changes ULEI's row, then saves all: the confirmation lists the pairs as shown.
    expect(await row(page, 'ULEI').locator('select').inputValue()).toBe('OE-2');
    await row(page, 'ULEI').locator('select').selectOption('OE-1');
    await page.click('form.bulk button');
    await page.waitForSelector('form.confirm');
    const pairs = await page.locator('ul.pairs li').allTextContents();
    expect(pairs).toEqual([expect.stringMatching(/^ULEI → OE-1 REPARAȚIE · 2 trimiteri blocate/), expect.stringMatching(/^REV → OE-3 REVIZIE PERIODICĂ · o trimitere blocată/)]);
    await look(page, `${width}-03-confirmare`);
    expect(await noSideScroll(page)).toBe(true);
    const confirms: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/mapari/sugestii')) confirms.push(r.postData() ?? '');
    });
    await page.locator('form.confirm button[type=submit]').dblclick();
    await page.waitForSelector('#mapari .notice.ok');
    expect(await page.locator('#mapari .notice.ok').textContent()).toContain('2 mapări salvate (ULEI → OE-1, REV → OE-3)');
    expect(confirms).toHaveLength(1);
    expect(await mapped(accountId, 'ULEI')).toBe('OE-1');
    const [sub] = await t.ctx.sql<{ status: string; prestatii: Array<{ cod_prestatie: string }> }[]>`SELECT status, prestatii FROM submissions WHERE id = ${ids.ULEI!}`;
    expect(sub).toMatchObject({ status: 'queued', prestatii: [expect.objectContaining({ cod_prestatie: 'OE-1' })] });
    expect(await mapped(accountId, 'POLISH')).toBeUndefined();

    // Change the saved mapping; its history says who changed what.
    const saved = page.locator('#salvate tbody tr', { hasText: 'ULEI' });
    await saved.locator('details.edit summary').click();
    await saved.locator('select').selectOption('OE-2');
    await saved.locator('button:has-text("Salvează modificarea")').click();
    await page.waitForSelector('#mapari .notice.ok:has-text("indică acum OE-2")');
    const history = page.locator('#salvate tbody tr', { hasText: 'ULEI' }).locator('details.history');
    await history.locator('summary').click();
    expect(await history.textContent()).toContain(`modificată OE-1 → OE-2 · de ${user.email}`);
    expect(await mapped(accountId, 'ULEI')).toBe('OE-2');
    await look(page, `${width}-04-istoric`);
    expect(await noSideScroll(page)).toBe(true);

    // A text rule: tested against the pending names first, then added, then deleted.
    await page.fill('#regula-noua-pattern', 'faruri');
    await page.selectOption('#regula-noua-cod', 'OE-2');
    await page.click('#regula-noua button:has-text("Testează")');
    await page.waitForSelector('#regula-test .rule-test');
    expect(await page.locator('#regula-test').textContent()).toContain('POLISH');
    await look(page, `${width}-05-regula-test`);
    await page.click('#regula-noua button:has-text("Adaugă regula")');
    await page.waitForSelector('#reguli tbody tr');
    expect(await page.locator('#reguli').textContent()).toContain('faruri');
    expect(await mapped(accountId, 'POLISH')).toBeUndefined();
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${ids.POLISH!}`)[0]?.status).toBe('queued');
    await look(page, `${width}-06-regula-salvata`);
    expect(await noSideScroll(page)).toBe(true);
    await page.click('#reguli button.danger');
    await page.waitForSelector('#mapari .notice.ok:has-text("Regula de text a fost ștearsă")');
    expect(await page.locator('#reguli').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);
});
