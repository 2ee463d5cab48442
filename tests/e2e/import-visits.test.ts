import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { csvFile } from '../helpers/import-files';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 31 in Chromium: an export with one operation per line shows each visit's lines as one
// record, says how many records the registry receives, shows the TOTAL line left out with its
// reason, and a clerk leaves a line out by hand with the keyboard. At 1366 and 390 px.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;

const HEADER = ['VIN', 'Nr. înmatriculare', 'Data', 'Km', 'Cod operație', 'Denumire operație'];
const LOADED = { timeout: 10_000 };

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount('Service Popescu');
  const key = await t.createKey(account);
  for (const [cod_op_service, cod_prestatie] of [
    ['SCH-ULEI', 'OE-2'],
    ['REV', 'OE-3'],
  ]) {
    await t.call('POST', '/v1/mapari', { key, body: { cod_op_service, cod_prestatie } });
  }
  const { email } = await makeUser(t, account, { email: 'ana@service-popescu.ro' });
  server = await serveOnLoopback(t.app.fetch);
  browser = await launchChromium();
  await signIn(browser.page, server.base, email, PASSWORD);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('visits on the import screen', () => {
  it('shows a visit as one record, the TOTAL line left out, and a line left out by hand with the keyboard', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${server.base}/`);
    const file = csvFile([
      HEADER,
      ['WDB 1234561A 900001', 'B 10 ABC', '14.03.2025', '87.400', 'SCH-ULEI', 'Schimb ulei'],
      ['WDB1234561A900001', 'B10ABC', '14.03.2025', '87.400', 'REV', 'Revizie periodică'],
      ['WDB1234561A900002', 'CJ20XYZ', '15.03.2025', '154 200', 'REV', 'Revizie'],
      [null, null, null, null, null, 'TOTAL: 3 lucrări'],
    ]);
    await page.setInputFiles('#fisier', { name: 'lucrari.csv', mimeType: 'text/csv', buffer: file });
    await page.waitForURL(/\/import\/\d+$/, { timeout: 30_000 });
    await page.waitForSelector('#r-1', LOADED);
    expect(await page.locator('#r-1 .visit').textContent()).toBe('Vizită de 2 rânduri: o singură înregistrare');
    expect(await page.locator('#r-2 .visit').textContent()).toBe('Aceeași vizită ca linia 2');
    expect(await page.locator('#r-4').textContent()).toContain('Rând de total');
    expect(await page.locator('.records').textContent()).toContain('2 înregistrări');
    await shot(page, 'vizite-1366');

    // Leave the second visit out with the keyboard: focus its button, Enter.
    await page.focus('#r-3 form[hx-post$="/deoparte"] button');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#r-3 .chip').first().textContent(), LOADED).toBe('Lăsat deoparte');
    expect(await page.locator('#r-3').textContent()).toContain('Lăsat deoparte de ana@service-popescu.ro');
    expect(await page.locator('.records').textContent()).toContain('o înregistrare');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<boolean>('document.scrollingElement.scrollWidth <= window.innerWidth')).toBe(true);
    await shot(page, 'vizite-390');
    expect(browser.problems).toEqual([]);
  }, 90_000);
});
