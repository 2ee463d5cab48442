import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { day, writeTable } from '../helpers/dbf-tables';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// A FoxPro table chosen on the home page: "Cum am citit tabela" says the code page and where it
// came from and shows the diacritics as read; a header that names the wrong code page is read
// again with the one the clerk chooses. E2E_SCREENSHOTS=<dir> keeps the screens.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let email: string;

const LOADED = { timeout: 15_000 };

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const accountId = await t.createAccount('Service Popescu');
  ({ email } = await makeUser(t, accountId, { email: 'ana@service-popescu.ro' }));
  server = await serveOnLoopback(t.app.fetch);
  base = server.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

/** Written in DOS 852, its header naming Windows-1250: what an old program that never set its code page leaves. */
async function misnamedTable(): Promise<Buffer> {
  const table = await writeTable({
    encoding: 'cp852',
    languageDriver: 0xc8,
    fields: [
      { name: 'VIN', type: 'C', size: 17 },
      { name: 'NRINM', type: 'C', size: 10 },
      { name: 'DATA', type: 'D', size: 8 },
      { name: 'KM', type: 'N', size: 9, decimalPlaces: 0 },
      { name: 'COD', type: 'C', size: 10 },
      { name: 'DENUMIRE', type: 'C', size: 40 },
    ],
    records: [
      { VIN: 'WVWZZZ1KZ6W000001', NRINM: 'B123ABC', DATA: day('2025-03-14'), KM: 154200, COD: 'OE-3', DENUMIRE: 'Înlocuire plăcuţe frână faţă' },
      { VIN: 'WVWZZZ1KZ6W000002', NRINM: 'IS22XYZ', DATA: day('2025-03-15'), KM: 87400, COD: 'OE-3', DENUMIRE: 'Schimb ulei şi filtru' },
      { VIN: 'WVWZZZ1KZ6W000003', NRINM: 'CJ10ABC', DATA: day('2025-03-16'), KM: 1000, COD: 'OE-3', DENUMIRE: 'Rotire roţi' },
    ],
    deleted: [2],
  });
  return table.dbf;
}

const readAs = (page: Page) => page.locator('.read-as').textContent();

describe('a .dbf table on the import screen', () => {
  for (const [label, viewport] of [
    ['1366', { width: 1366, height: 900 }],
    ['390', { width: 390, height: 844 }],
  ] as const) {
    it(`shows how it was read and reads it again in the code page chosen (${label} px)`, async () => {
      const { page, problems } = browser;
      await page.setViewportSize(viewport);
      await page.goto(`${base}/`);
      if (page.url().includes('/login')) await signIn(page, base, email, PASSWORD);
      const table = await misnamedTable();
      await page.setInputFiles('#fisier', { name: 'SERVICE.DBF', mimeType: 'application/octet-stream', buffer: table });
      await page.waitForURL(/\/import\/\d+$/, LOADED);
      const first = page.url();
      const read = await readAs(page);
      expect(read).toContain('Windows-1250');
      expect(read).toContain('din antetul tabelei (octetul de limbă 0xC8)');
      expect(read).toContain('una ștearsă (DELETE), lăsată deoparte');
      // 852's ţ and ş read as 1250: not the letters the program shows.
      expect(read).not.toContain('plăcuţe');
      await shot(page, `dbf-${label}-citita-gresit`);

      // The keyboard reaches the code page, the file and the button.
      await page.focus('#citire-codare');
      await page.selectOption('#citire-codare', '852');
      await page.setInputFiles('#citire-fisier', { name: 'SERVICE.DBF', mimeType: 'application/octet-stream', buffer: table });
      await page.locator('form.read-again button').press('Enter');
      await page.waitForURL((url) => /\/import\/\d+$/.test(url.pathname) && url.href !== first, LOADED);
      const again = await readAs(page);
      expect(again).toContain('DOS 852');
      expect(again).toContain('aleasă de dumneavoastră la încărcare');
      expect(again).toContain('Înlocuire plăcuţe frână faţă');
      expect(await page.locator('#import-titlu').textContent()).toContain('SERVICE.DBF');
      const sideways = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      const wide = await page.evaluate(
        '[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName + "." + e.className + "#" + e.id).slice(0, 8).join(" ")',
      );
      expect(sideways, String(wide)).toBeLessThanOrEqual(0);
      await shot(page, `dbf-${label}-citita-852`);
      expect(problems).toEqual([]);
    }, 60_000);
  }
});
