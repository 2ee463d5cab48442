import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import type { TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { csvFile, HEADER } from '../helpers/import-files';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';

// Issue 19 in Chromium, with the worker and the simulated registry: a csv with a Romanian
// header is chosen on the home page, its columns accepted, one unmapped code fixed once for
// many rows, a bad cell corrected until its row is ready, a held row included, the count typed
// and committed, and the rows followed until "Trimisă". The LibreOffice workbook and the phone
// (390 px) next; then the 100,000-row csv's first page on screen, measured.
// E2E_SCREENSHOTS=<dir> keeps a screenshot of each step.

let h: WorkerHarness;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let email: string;
let accountId: number;

/** A server answer awaited on a machine shared with other work: longer than expect.poll's one second. */
const LOADED = { timeout: 10_000 };
const WIDE = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const REVIEW_VIN = 'WDB1234561A500001';
const BAD_VIN = 'WDB12345';
const FIXED_VIN = 'WDB1234561A500099';

/** The phone's screen as it shows a part of the page (beside the full-page shots). */
async function screenAt(page: Page, selector: string, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (!dir) return;
  await page.locator(selector).first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** Nothing wider than the screen: the page never scrolls sideways. */
const sideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** The workshop's weekly export: four rows of one unmapped code, one bad VIN, one odometer below a recorded reading. */
function weeklyExport(): Buffer {
  const row = (vin: string, plate: string, km: number) => [vin, plate, '14.03.2025', '', String(km), 'X-ULEI', 'Schimb ulei motor'];
  return csvFile([
    HEADER,
    row('WDB1234561A500011', 'B-11-ULE', 120_000),
    row('WDB1234561A500012', 'B-12-ULE', 121_000),
    row('WDB1234561A500013', 'B-13-ULE', 122_000),
    row('WDB1234561A500014', 'B-14-ULE', 123_000),
    row(BAD_VIN, 'B-15-ULE', 124_000),
    row(REVIEW_VIN, 'B-16-ULE', 150_000),
  ]);
}

beforeAll(async () => {
  // The stager in a process of its own, as in production: the 100,000-row file's rest is staged
  // beside the server, and the screen's polls are answered meanwhile.
  h = await startWorkerHarness(FAST_SCRYPT, { stagerProcess: true });
  await h.start();
  accountId = await h.createAccount('Service Popescu', { username: 'demo', password: 'demo' });
  ({ email } = await makeUser({ ctx: h.app } as TestApp, accountId, { email: 'ana@service-popescu.ro' }));
  // A reading already recorded for the VIN whose row will be held for review.
  const earlier = await h.submit(accountId, { vin: REVIEW_VIN, nrInm: 'B16ULE', dataPrestatie: '2025-02-01', odometruFinal: 200_000 });
  await h.waitForStatus(earlier.id, 'sent', 20_000);
  server = await serveOnLoopback(createApp(h.app).fetch);
  base = server.base;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await h?.close();
});

/** Signed in (once per browser: a test run alone signs in itself), on the home page. */
async function signedIn(page: Page) {
  await page.goto(`${base}/`);
  if (page.url().includes('/login')) await signIn(page, base, email, PASSWORD);
}

/** Chooses a file in the picker (any MIME type the browser gives it): the upload goes at once and opens the batch's screen. */
async function choose(page: Page, name: string, buffer: Buffer, mimeType = 'application/octet-stream') {
  await page.setInputFiles('#fisier', { name, mimeType, buffer });
  await page.waitForURL(/\/import\/\d+$/, { timeout: 30_000 });
  await page.waitForSelector('#import');
  // Queued, then staged by the stager: the screen polls until its progress gives way to the steps.
  await page.waitForSelector('#import .progress', { state: 'detached', timeout: 60_000 });
}

const chipCount = (page: Page, label: string) => page.locator(`#import .chips a:has-text("${label}") .n`).textContent();

describe('the import screen at 1366 px', () => {
  it('csv → columns → one code fixed for many rows → a cell corrected → a held row included → commit by count → Trimisă', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(WIDE);
    await signedIn(page);
    await shot(page, 'i01-acasa');

    await choose(page, 'export-saptamanal.csv', weeklyExport());
    await shot(page, 'i02-import-incarcat');
    // Samples read as the clerk writes them; the mapping is a suggestion until accepted.
    expect(await page.locator('.columns-table').textContent()).toContain('14.03.2025 → 14.03.2025');
    await page.click('#coloane button[type=submit]');
    await expect.poll(() => page.locator('#import-stare .notice.ok').textContent(), LOADED).toContain('Maparea coloanelor a fost salvată');
    expect(await page.locator('#import').textContent()).toContain('Maparea salvată pentru acest antet');
    // The bad VIN's row is held for its data first; every row waits for the code.
    expect(await chipCount(page, 'Cod nemapat')).toBe('5');

    // One code, six rows: mapped once.
    const op = page.locator('#de-mapat tr:has-text("X-ULEI")');
    expect(await op.textContent()).toContain('6 rânduri');
    await op.locator('select').selectOption('OE-2');
    await shot(page, 'i03-cod-de-mapat');
    await op.locator('button').click();
    await expect.poll(() => page.locator('#import-stare .notice.ok').textContent(), LOADED).toContain('X-ULEI → OE-2');
    expect(await chipCount(page, 'Gata de trimis')).toBe('4');
    expect(await chipCount(page, 'Date de corectat')).toBe('1');
    expect(await chipCount(page, 'De verificat')).toBe('1');

    // The bad VIN: its error at its cell; Escape puts the value back, Enter saves.
    const bad = page.locator(`input[data-cell][value="${BAD_VIN}"]`);
    const badRow = page.locator('tr', { has: bad });
    expect(await badRow.locator('.cell-err').textContent()).toContain('VIN-ul nu este valid.');
    await shot(page, 'i04-celula-gresita');
    await bad.fill('ceva');
    await bad.press('Escape');
    expect(await bad.inputValue()).toBe(BAD_VIN);
    await bad.fill(FIXED_VIN);
    await bad.press('Enter');
    await expect.poll(() => chipCount(page, 'Gata de trimis'), LOADED).toBe('5');
    expect(await page.locator(`tr:has(input[value="${FIXED_VIN}"]) .chip`).first().textContent()).toBe('Gata de trimis');

    // The held row shows the reading it contradicts, and is included on purpose.
    const held = page.locator('.review-list li', { hasText: REVIEW_VIN });
    expect(await held.textContent()).toContain('200.000 km');
    await held.locator('button').click();
    await expect.poll(() => chipCount(page, 'Gata de trimis'), LOADED).toBe('6');
    await shot(page, 'i05-gata');

    // Commit: the count typed by hand.
    expect(await page.locator('form.commit label').textContent()).toContain('(6)');
    await page.fill('#numar', '5');
    await page.click('form.commit button');
    await expect.poll(() => page.locator('#import-stare .notice.error').textContent(), LOADED).toContain('Numărul de rânduri confirmat nu corespunde');
    await page.fill('#numar', '6');
    await page.click('form.commit button');
    await page.waitForSelector('#trimis-titlu');
    await shot(page, 'i06-confirmat');
    // Followed there until sent (the poll every 3 s), then in Trimiteri.
    await expect.poll(() => page.locator('#urmarire').textContent(), { timeout: 30_000 }).toContain('Trimisă 6');
    expect(await page.locator('#urmarire').textContent()).not.toContain('În coadă');
    await shot(page, 'i07-trimise');
    await page.click('a:has-text("Urmăriți-le în Trimiteri")');
    await page.waitForSelector('#coada');
    await page.click('#coada .chips a:has-text("Toate")');
    await expect.poll(() => page.locator('#coada .chip:has-text("Trimisă")').count(), LOADED).toBeGreaterThanOrEqual(7);
    // Among the earlier imports, committed.
    expect(await page.locator('#importuri').textContent()).toContain('export-saptamanal.csv');
    expect(problems).toEqual([]);
  }, 120_000);

  it('a file that cannot be imported gets the API’s message in place, not an error page', async () => {
    const { page, problems } = browser;
    await signedIn(page);
    await page.setInputFiles('#fisier', { name: 'raport.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n') });
    await expect.poll(() => page.locator('#incarcare-stare .notice.error').textContent(), LOADED).toContain('Fișierul nu este un tabel xlsx sau csv.');
    expect(page.url()).toBe(`${base}/`);
    // Emptied, so that the same file, fixed, can be chosen again.
    expect(await page.inputValue('#fisier')).toBe('');
    await shot(page, 'i08-pdf-refuzat');
    expect(problems).toEqual([]);
  }, 30_000);

  it('a file dropped on the zone is uploaded like a chosen one', async () => {
    const { page, problems } = browser;
    await signedIn(page);
    const text = `${HEADER.join(';')}\r\nWDB1234561A500031;B-31-DRP;14.03.2025;;99000;X-ULEI;Schimb ulei motor\r\n`;
    // Built in the page (the tests have no DOM types): what a file manager's drag carries.
    const drop = await page.evaluateHandle(`(() => { const d = new DataTransfer(); d.items.add(new File([${JSON.stringify(text)}], 'tras.csv', { type: '' })); return d; })()`);
    await page.dispatchEvent('[data-drop]', 'drop', { dataTransfer: drop });
    await page.waitForURL(/\/import\/\d+$/);
    expect(await page.locator('#import-titlu').textContent()).toBe('Import: tras.csv');
    expect(problems).toEqual([]);
  }, 30_000);
});

describe('the import screen at 390 px', () => {
  it('the LibreOffice workbook: its columns accepted, no sideways scroll, Back returns to the filter it left', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(PHONE);
    await signedIn(page);
    await shot(page, 'i11-telefon-acasa');
    expect(await sideways(page)).toBe(0);
    await choose(page, 'libreoffice-export.xlsx', readFileSync(join(__dirname, '../fixtures/libreoffice-export.xlsx')));
    expect(await sideways(page)).toBe(0);
    // Excel serials shown as the dates they are, on both sides (issue 31: never the serial).
    const columns = await page.locator('.columns-table').textContent();
    expect(columns).toContain('14.03.2025 → 14.03.2025');
    expect(columns).not.toMatch(/\d{5} → 14\.03\.2025/);
    await page.click('#coloane button[type=submit]');
    await expect.poll(() => page.locator('#import-stare .notice.ok').count(), LOADED).toBe(1);
    await shot(page, 'i12-telefon-import');
    await screenAt(page, '#coloane', 'i13-telefon-coloane');
    await screenAt(page, '#rezolva-titlu', 'i14-telefon-de-rezolvat');
    await screenAt(page, '#previzualizare-titlu', 'i15-telefon-randuri');
    await screenAt(page, '#confirma-titlu', 'i16-telefon-confirmare');
    // A chip filters (its own URL); Back returns to every row.
    const url = page.url();
    await page.click('#import .chips a:has-text("Cod nemapat")');
    await page.waitForURL(/stare=needs_mapping/);
    await page.goBack();
    await page.waitForURL(url);
    await expect.poll(() => page.locator('#import .chips a[aria-current="true"]').textContent(), LOADED).toContain('Toate');
    expect(await sideways(page)).toBe(0);
    // A column's field picked from its list saves it and re-renders its samples (import.js), and back.
    const kmOut = page.locator('#coloane tr:has(th:text-is("Km ieșire")) select');
    await kmOut.selectOption('');
    await expect.poll(() => page.locator('#coloane tr:has(th:text-is("Km ieșire"))').textContent(), LOADED).toContain('nu se citește');
    await page.locator('#coloane tr:has(th:text-is("Km ieșire")) select').selectOption('odometruFinal');
    await expect.poll(() => page.locator('#coloane tr:has(th:text-is("Km ieșire"))').textContent(), LOADED).toContain('154200 → 154200');
    // The keyboard alone reaches the first cell of the preview, from the page's heading.
    await page.focus('#import-titlu');
    let reached = false;
    for (let i = 0; i < 80 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate("document.activeElement?.matches('input[data-cell]') ?? false")) as boolean;
    }
    expect(reached).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('a 100,000-row csv', () => {
  it('has its first page on screen soon after the file is chosen (the figure is printed)', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(WIDE);
    await signedIn(page);
    const rows = Array.from({ length: 100_000 }, (_, i) => [`WDB1234561A${String(600_000 + i)}`, `B-${i % 1000}-MAR`, '14.03.2025', '', String(100_000 + i), 'OE-3', 'Revizie']);
    const buffer = csvFile([HEADER, ...rows]);
    await page.goto(`${base}/`);
    const started = Date.now();
    await page.setInputFiles('#fisier', { name: 'an-intreg.csv', mimeType: 'text/csv', buffer });
    await page.waitForSelector('#import .preview-table tbody tr', { timeout: 60_000 });
    const ms = Date.now() - started;
    console.log(`import screen: 100,000-row csv (${(buffer.length / 1024 / 1024).toFixed(1)} MB), first preview page on screen ${ms} ms after choosing the file`);
    await shot(page, 'i21-100k-prima-pagina');
    // Generous: the target is 3 s; a loaded shared machine must not fail the run.
    expect(ms).toBeLessThan(20_000);
    // Until the whole file is read the page shows the progress; then the screen is complete.
    await page.waitForSelector('#confirma-titlu', { timeout: 120_000 });
    await shot(page, 'i22-100k-gata');
    expect(problems).toEqual([]);
  }, 180_000);
});
