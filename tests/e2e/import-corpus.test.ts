import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Expected } from '../fixtures/exports/corpus';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, signIn } from '../helpers/chromium';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 31 in Chromium with a real export of the corpus (tests/fixtures/exports): the
// Windows-1250 csv with a title line, one operation per line, a spaced and a lowercase VIN,
// "87.400" km, a line with "87,4" km and a TOTAL line. A clerk maps its codes on the screen,
// leaves nothing else to do and commits; at every step the screen speaks the clerk's words
// (no API field, no ISO date), never scrolls sideways, and after the commit each row shows
// what became of it. At 1366 and 390 px; E2E_SCREENSHOTS=<dir> keeps what the clerk sees.

const FILE = '04-windows-1250.csv';
const DIR = join(import.meta.dirname, '../fixtures/exports');
const bytes = readFileSync(join(DIR, FILE));
const expected = JSON.parse(readFileSync(join(DIR, `${FILE}.expected.json`), 'utf8')) as Expected;
const LOADED = { timeout: 10_000 };

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

/** What a program says and a clerk never reads: the API's field names and keys, its date form, an ISO date. */
const API_WORDS =
  /\b(nrInm|dataPrestatie|odometruInitial|odometruFinal|prestatii|cod_prestatie|cod_op_service|n_to_commit|rows_hash|n_confirmed|batch_id)\b|AAAA-LL-ZZ|\b\d{4}-\d{2}-\d{2}\b/g;

/** The text the clerk reads on the page (not attributes), whatever of it a program would say. */
async function apiWordsOnScreen(page: Page): Promise<string[]> {
  // (`vin` is left out: in capitals it is the clerk's word too.)
  const text = (await page.evaluate('document.body.innerText')) as string;
  return [...text.matchAll(API_WORDS)].map((m) => m[0]);
}

const sideways = (page: Page) => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** With E2E_SCREENSHOTS=<dir>: `selector` scrolled to the top of the viewport, and the viewport shot. */
async function shotOf(page: Page, name: string, selector?: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (!dir) return;
  if (selector)
    await page
      .locator(selector)
      .first()
      .evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** The screen as it should be at every step: in the clerk's words, within its width. */
async function judged(page: Page, step: string) {
  expect(await apiWordsOnScreen(page), step).toEqual([]);
  expect(await sideways(page), step).toBe(0);
}

describe.each([
  ['1366', { width: 1366, height: 900 }],
  ['390', { width: 390, height: 844 }],
] as const)('a Windows-1250 export on the import screen at %s px', (width, viewport) => {
  it('previews its visits, holds the fractional km, leaves the TOTAL out, maps its codes on the screen and commits one record per visit', async () => {
    const { page, problems } = browser;
    // An account of its own per width: the mappings saved at one width would be the other's.
    const account = await t.createAccount(`Service Dobrescu ${width}`);
    const { email } = await makeUser(t, account, { email: `ana${width}@dobrescu.ro` });
    await browser.context.clearCookies();
    await signIn(page, server.base, email, PASSWORD);
    await page.setViewportSize(viewport);

    await page.goto(`${server.base}/`);
    await page.setInputFiles('#fisier', { name: FILE, mimeType: 'text/csv', buffer: bytes });
    await page.waitForURL(/\/import\/\d+$/, { timeout: 30_000 });
    await page.waitForSelector('#de-mapat', { timeout: 30_000 });
    await judged(page, 'uploaded');
    await shotOf(page, `k01-previzualizare-${width}`);
    await shotOf(page, `k02-coloane-${width}`, '#coloane');

    // Its codes, each saved with the registry code the clerk chooses (expected.json), by its own row.
    const codes = Object.entries(expected.mappings);
    expect(await page.locator('#de-mapat tbody input[name=cod_op_service]').count()).toBe(codes.length);
    await shotOf(page, `k03-de-mapat-${width}`, '#de-mapat');
    // Each workshop code on one line: "PLAC-FATA" broken at its dash reads as two codes.
    const lines = (await page.evaluate(
      `[...document.querySelectorAll('#de-mapat td[data-label="Codul dvs."]')].map((td) => { const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length; })`,
    )) as number[];
    expect(lines).toEqual(codes.map(() => 1));
    for (const [code, registry] of codes) {
      const row = page.locator('#de-mapat tbody tr', { has: page.locator(`input[name=cod_op_service][value="${code}"]`) });
      await row.locator('select').selectOption(registry);
      await row.locator('button').click();
      await expect.poll(() => page.locator('#import-stare .notice.ok').textContent(), LOADED).toContain(`${code} → ${registry}`);
    }
    expect(await page.locator('#de-mapat tbody tr').count()).toBe(0);
    await judged(page, 'mapped');

    // The TOTAL line left out with its reason; the line with "87,4" km held with the reason at its cell.
    const [total] = expected.left_out;
    const totalRow = page.locator('#import .preview-table tbody tr', { has: page.locator(`td[data-label="Linia"]:text-is("${total!.line}")`) });
    expect(await totalRow.locator('.chip').first().textContent()).toBe('Lăsat deoparte');
    expect(await totalRow.textContent()).toContain('Rând de total');
    const [held] = expected.held;
    const heldRow = page.locator('#import .preview-table tbody tr', { has: page.locator(`td[data-label="Linia"]:text-is("${held!.line}")`) });
    expect(await heldRow.locator('.chip').first().textContent()).toBe('Date de corectat');
    expect(await heldRow.locator('.cell-err').textContent()).toContain('Odometrul nu este un număr întreg de kilometri.');
    // Shown as the file wrote it, with its decimal comma, not as "87.4".
    expect(await heldRow.locator('input[id$="-odometruFinal"]').inputValue()).toBe('87,4');
    // The spaced and the lowercase VIN as they will be stored, without a hand edit.
    const vins = await page.locator('#import .preview-table input[name=valoare][id$="-vin"]').evaluateAll((es) => es.map((e) => (e as unknown as { value: string }).value));
    for (const record of expected.records) expect(vins).toContain(record.vin);
    expect(await page.locator('.records').textContent()).toContain(`${expected.records.length} înregistrări`);
    await shotOf(page, `k04-randuri-${width}`, '#import .preview-table');
    await shotOf(page, `k05-deoparte-${width}`, `#import .preview-table tbody tr:has(td[data-label="Linia"]:text-is("${total!.line}"))`);

    // The commit by the count as the screen writes it: its summary in view, each row's state after it.
    const label = (await page.locator('form.commit label').textContent()) ?? '';
    await page.fill('#numar', /\(([^)]+)\)/.exec(label)![1]!);
    await page.locator('form.commit button').click();
    await page.waitForSelector('#trimis-titlu', LOADED);
    await expect.poll(() => page.evaluate('document.activeElement?.id'), LOADED).toBe('trimis-titlu');
    const summary = (await page.locator('#trimis-titlu').locator('xpath=..').textContent()) ?? '';
    const stored = expected.records.length + expected.held.length;
    const committedLines = expected.sheets[0]!.data_rows - expected.left_out.length;
    expect(summary).toContain(`${committedLines} rânduri au intrat în Trimiteri, ca ${stored} trimiteri (una pe vizită); un rând a rămas deoparte.`);
    // The notice counts what the commit stored: submissions, not rows.
    expect(await page.locator('#import-stare .notice.ok').textContent()).toBe(`Importul a fost confirmat: ${stored} trimiteri noi în Trimiteri.`);
    await judged(page, 'committed');
    await shotOf(page, `k06-confirmat-${width}`);
    const states = await page.locator('#import .preview-table tbody td[data-label="Stare"] .chip').allTextContents();
    // Every line of a committed visit shows its submission's state; the held line its own; the TOTAL why it is not one.
    expect(states.filter((s) => s === 'În coadă')).toHaveLength(expected.sheets[0]!.data_rows - expected.held.length - expected.left_out.length);
    expect(states.filter((s) => s === 'Date de completat')).toHaveLength(1);
    expect(states.filter((s) => s === 'Lăsat deoparte')).toHaveLength(1);
    // The TOTAL line says its own reason, once.
    expect(await totalRow.locator('td[data-label="Stare"] p').allTextContents()).toEqual(['Rând de total, nu o prestație.']);
    await shotOf(page, `k07-randuri-confirmate-${width}`, '#import .preview-table');
    const sent = await t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE scope_account_id = ${account} AND status = 'queued'`;
    expect(sent[0]!.n).toBe(expected.records.length);

    // A missing import and a missing submission: the layout's 404 page, in its width too.
    for (const path of ['/import/99999999', '/trimiteri/99999999']) {
      const answer = await page.goto(`${server.base}${path}`);
      expect(answer?.status(), path).toBe(404);
      expect(await page.title(), path).toBe('Pagina nu există · Gateway prezentări');
      expect(await page.getAttribute('html', 'lang'), path).toBe('ro');
      expect(await page.locator('header, nav').count(), path).toBeGreaterThan(0);
      await judged(page, path);
      await shotOf(page, `k08-404${path.replaceAll('/', '-').replace(/-\d+$/, '')}-${width}`);
    }
    // The 404s were asked for; nothing else went wrong.
    expect(problems.filter((p) => !p.includes('/99999999'))).toEqual([]);
    problems.length = 0;
  }, 120_000);
});
