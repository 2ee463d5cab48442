import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { csvFile, HEADER } from '../helpers/import-files';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 31 in Chromium, with the keyboard as a clerk uses it: the code list keeps each row's own
// code after another is saved, a corrected cell is saved when it is left (Tab, a click), Escape
// puts the stored value back, focus lands on each action's result, and moving through a
// column's options sends nothing until the clerk confirms.
// E2E_SCREENSHOTS=<dir> keeps a screenshot of each step.

let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let base: string;
let accountId: number;

/** A server answer awaited on a machine shared with other work: longer than expect.poll's one second. */
const LOADED = { timeout: 10_000 };
const WIDE = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const BAD_VIN = 'WDB12345';
const FIXED_VIN = 'WDB1234561A700099';

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  server = await serveOnLoopback(t.app.fetch);
  base = server.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

/** Three codes the account has never mapped, two rows each (the first two with the same suggestion); one row with a VIN too short. */
function threeCodes(tag: string): Buffer {
  const row = (n: number, vin: string, code: string, name: string) => [vin, `B-${n}-${tag}`, '14.03.2025', '', String(100_000 + n), code, name];
  return csvFile([
    HEADER,
    row(1, 'WDB1234561A700001', `${tag}-ULEI-MOTOR`, 'Schimb ulei motor'),
    row(2, 'WDB1234561A700002', `${tag}-ULEI-MOTOR`, 'Schimb ulei motor'),
    row(3, 'WDB1234561A700003', `${tag}-ULEI-SI-FILTRU`, 'Schimb ulei și filtru ulei'),
    row(4, 'WDB1234561A700004', `${tag}-ULEI-SI-FILTRU`, 'Schimb ulei și filtru ulei'),
    row(5, 'WDB1234561A700005', `${tag}-SOFT`, 'Actualizare software'),
    row(6, BAD_VIN, `${tag}-SOFT`, 'Actualizare software'),
  ]);
}

/** The file chosen on the home page: the upload opens its screen. */
async function upload(page: Page, name: string, buffer: Buffer) {
  await page.goto(`${base}/`);
  await page.setInputFiles('#fisier', { name, mimeType: 'text/csv', buffer });
  await page.waitForURL(/\/import\/\d+$/, { timeout: 30_000 });
  await page.waitForSelector('#import');
  // Queued, then staged by the stager: the screen polls until its progress gives way to the steps.
  await page.waitForSelector('#import .progress', { state: 'detached', timeout: 60_000 });
  // Small files are read at once; a loaded machine may show the progress for a moment.
  await page.waitForSelector('#coloane button[type=submit]', { timeout: 30_000 });
  return Number(/\/import\/(\d+)$/.exec(page.url())![1]);
}

/** With E2E_SCREENSHOTS=<dir>, the screen as the clerk sees it (the viewport, not the whole page). */
async function inView(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** What has focus, as a selector-like description. */
const focused = (page: Page) =>
  page.evaluate(
    `(() => { const e = document.activeElement; if (!e || e === document.body) return 'body'; return e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : ''); })()`,
  ) as Promise<string>;
const focusedText = (page: Page) => page.evaluate('document.activeElement?.textContent ?? ""') as Promise<string>;
/** Whether the focused element is within the viewport. */
const focusInView = (page: Page) =>
  page.evaluate('(() => { const r = document.activeElement.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()') as Promise<boolean>;

/** Tab until `selector` has focus (at most `limit` presses), as a clerk reaches it. */
async function tabTo(page: Page, selector: string, limit = 120) {
  for (let i = 0; i < limit; i++) {
    if ((await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) as boolean) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Requests the page sends to a path ending in `suffix`, counted from now. */
function counter(page: Page, suffix: string) {
  let n = 0;
  const listener = (req: { url: () => string; method: () => string }) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname.endsWith(suffix)) n += 1;
  };
  page.on('request', listener);
  return { get: () => n, stop: () => page.off('request', listener) };
}

const opRow = (page: Page, code: string) => page.locator('#de-mapat tbody tr', { has: page.locator(`input[name=cod_op_service][value="${code}"]`) });
const codeOf = (page: Page, code: string) => opRow(page, code).locator('select').inputValue();
const mappedTo = async (code: string) =>
  (await t.ctx.sql<{ cod_prestatie: string }[]>`SELECT cod_prestatie FROM operation_mappings WHERE account_id = ${accountId} AND cod_op_service = ${code}`)[0]?.cod_prestatie;

describe.each([
  ['1366', WIDE],
  ['390', PHONE],
] as const)('the import screen at %s px', (width, viewport) => {
  const tag = width === '1366' ? 'L' : 'T';

  // An account of its own per width: a mapping saved at one width changes the other's suggestions.
  beforeAll(async () => {
    accountId = await t.createAccount(`Service ${width}`);
    const { email } = await makeUser(t, accountId, { email: `ana${width}@service-ionescu.ro` });
    await browser.context.clearCookies();
    await signIn(browser.page, base, email, PASSWORD);
  }, 30_000);

  it('keeps each code row on its own code after another row is saved, across re-renders and a reload', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(viewport);
    await upload(page, `coduri-${width}.csv`, threeCodes(tag));
    await page.click('#coloane button[type=submit]');
    await expect.poll(() => page.locator('#import-stare .notice.ok').count(), LOADED).toBe(1);

    // Listed by rows, then by code: the software update, then the two oil changes.
    const [soft, oil, oilFilter] = [`${tag}-SOFT`, `${tag}-ULEI-MOTOR`, `${tag}-ULEI-SI-FILTRU`];
    expect(await page.locator('#de-mapat tbody input[name=cod_op_service]').evaluateAll((es) => es.map((e) => (e as unknown as { value: string }).value))).toEqual([
      soft,
      oil,
      oilFilter,
    ]);
    const hint = (code: string) => opRow(page, code).locator('.suggestion, p.muted').first().textContent();
    const before = { soft: await codeOf(page, soft), oil: await codeOf(page, oil), oilFilter: await codeOf(page, oilFilter) };
    const hints = { soft: await hint(soft), oilFilter: await hint(oilFilter) };
    // The case the clerk met: the next row suggests the same code as the one changed.
    expect(before.oil).not.toBe('');
    expect(before.oilFilter).toBe(before.oil);

    // The clerk changes the first oil change away from its suggestion, and saves it.
    const chosen = before.oil === 'OE-4' ? 'OE-5' : 'OE-4';
    await opRow(page, oil).locator('select').selectOption(chosen);
    await opRow(page, oil).locator('button').click();
    await expect.poll(() => page.locator('#import-stare .notice.ok').textContent(), LOADED).toContain(`${oil} → ${chosen}`);
    expect(await mappedTo(oil)).toBe(chosen);
    await shot(page, `c01-cod-salvat-${width}`);
    // Every other row shows its own code, with its own hint.
    expect(await codeOf(page, oilFilter)).toBe(before.oilFilter);
    expect(await hint(oilFilter)).toBe(hints.oilFilter);
    expect(await codeOf(page, soft)).toBe(before.soft);
    expect(await hint(soft)).toBe(hints.soft);
    // Its Save stores its own code.
    await opRow(page, oilFilter).locator('button').click();
    await expect.poll(() => page.locator('#import-stare .notice.ok').textContent(), LOADED).toContain(`${oilFilter} → ${before.oilFilter}`);
    expect(await mappedTo(oilFilter)).toBe(before.oilFilter);

    // A choice not saved stays on its own row through a re-render, and a reload shows what is stored.
    const mine = before.soft === 'OE-1' ? 'OE-4' : 'OE-1';
    await opRow(page, soft).locator('select').selectOption(mine);
    await page.click('#import .chips a:has-text("Cod nemapat")');
    await page.waitForURL(/stare=needs_mapping/);
    expect(await codeOf(page, soft)).toBe(mine);
    await page.reload();
    await page.waitForSelector('#de-mapat');
    expect(await codeOf(page, soft)).toBe(before.soft);
    expect(await mappedTo(soft)).toBeUndefined();
    expect(problems).toEqual([]);
  }, 60_000);

  it('saves a corrected cell left with Tab or a click; Escape puts the stored value back and stays in the cell', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(viewport);
    await upload(page, `celule-${width}.csv`, threeCodes(`${tag}C`));
    const edits = counter(page, '/editeaza');
    const vin = page.locator(`#import input[data-cell][value="${BAD_VIN}"]`);
    const vinId = (await vin.getAttribute('id'))!;
    const rowIndex = /^c-(\d+)-vin$/.exec(vinId)![1];
    const cell = (field: string) => page.locator(`#c-${rowIndex}-${field}`);
    const td = (field: string) => page.locator(`td:has(> form #c-${rowIndex}-${field})`);
    expect(await td('vin').locator('.cell-err').count()).toBeGreaterThan(0);

    // Typed over, left with Tab: saved, its error gone, and the clerk is in the next cell.
    await vin.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(FIXED_VIN);
    await page.keyboard.press('Tab');
    await expect.poll(() => td('vin').locator('.cell-err').count(), LOADED).toBe(0);
    expect(await td('vin').textContent()).toContain('(corectat)');
    expect(await focused(page)).toBe(`#c-${rowIndex}-nrInm`);
    expect(edits.get()).toBe(1);
    await inView(page, `c02-celula-tab-${width}`);

    // Typed over, left with a click elsewhere: saved too.
    await page.keyboard.press('Control+A');
    await page.keyboard.type('B-99-XYZ');
    await page.click('#previzualizare-titlu');
    await expect.poll(() => td('nrInm').textContent(), LOADED).toContain('(corectat)');
    expect(edits.get()).toBe(2);
    // Shown as stored (a plate without its dashes).
    const plate = await cell('nrInm').inputValue();
    expect(plate).toBe('B99XYZ');

    // Escape: the stored value again, focus still in the cell, nothing sent (nor when it is left).
    const km = cell('odometruFinal');
    const stored = await km.inputValue();
    await km.click();
    await page.keyboard.press('End');
    await page.keyboard.type('999');
    await page.keyboard.press('Escape');
    expect(await km.inputValue()).toBe(stored);
    expect(await focused(page)).toBe(`#c-${rowIndex}-odometruFinal`);
    await page.keyboard.press('Tab');
    await page.waitForTimeout(300);
    expect(edits.get()).toBe(2);

    // What the screen showed is what is stored.
    await page.reload();
    await page.waitForSelector(`#c-${rowIndex}-vin`);
    expect(await cell('vin').inputValue()).toBe(FIXED_VIN);
    expect(await cell('nrInm').inputValue()).toBe(plate);
    expect(await cell('odometruFinal').inputValue()).toBe(stored);
    edits.stop();
    expect(problems).toEqual([]);
  }, 60_000);

  it('moves focus to each action’s result: the screen, the columns saved, a code saved, the commit, a refused upload', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(viewport);
    await upload(page, `focus-${width}.csv`, threeCodes(`${tag}F`));
    // The upload opened the screen: its heading.
    expect(await focused(page)).toBe('#import-titlu');

    // "Folosește această mapare", reached with Tab and pressed: its notice.
    await tabTo(page, '#coloane button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page), LOADED).toContain('Maparea coloanelor a fost salvată');
    expect(await focusInView(page)).toBe(true);
    await inView(page, `c03-focus-coloane-${width}`);

    // Each "Salvează pentru N rânduri": its notice.
    for (let i = 0; i < 3; i++) {
      const code = await page.locator('#de-mapat tbody input[name=cod_op_service]').first().inputValue();
      const select = page.locator('#de-mapat tbody select').first();
      if ((await select.inputValue()) === '') await select.selectOption('OE-1');
      await tabTo(page, '#de-mapat tbody tr:first-child button');
      await page.keyboard.press('Enter');
      await expect.poll(() => focusedText(page), LOADED).toContain(`Maparea ${code} →`);
      expect(await focusInView(page)).toBe(true);
    }
    await inView(page, `c04-focus-cod-${width}`);

    // The commit: its summary, in view.
    const n = /\((\d+)\)/.exec((await page.locator('form.commit label').textContent()) ?? '')![1]!;
    await tabTo(page, '#numar');
    await page.keyboard.type(n);
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), LOADED).toBe('#trimis-titlu');
    expect(await focusInView(page)).toBe(true);
    expect(await page.locator('#trimis-titlu').isVisible()).toBe(true);
    await inView(page, `c05-focus-confirmat-${width}`);

    // A refused upload: its notice.
    await page.goto(`${base}/`);
    await page.setInputFiles('#fisier', { name: 'raport.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n1 0 obj\n') });
    await expect.poll(() => focusedText(page), LOADED).toContain('Fișierul nu este un tabel xlsx sau csv.');
    expect(await focused(page)).toMatch(/^div\.notice\.error/);
    await inView(page, `c06-focus-refuzat-${width}`);
    expect(problems).toEqual([]);
  }, 90_000);

  it('sends nothing while the keys move through a column’s options, until Enter confirms', async () => {
    const { page, problems } = browser;
    await page.setViewportSize(viewport);
    await upload(page, `coloane-${width}.csv`, threeCodes(`${tag}K`));
    const saves = counter(page, '/coloane');
    const row = page.locator('#coloane tr:has(th:text-is("Km intrare"))');
    const select = row.locator('select');
    const saved = await select.inputValue();
    expect(saved).toBe('odometruInitial');

    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await select.inputValue()).not.toBe(saved);
    // The change waits, and says so; leaving the select does not send it either.
    await page.waitForTimeout(500);
    expect(saves.get()).toBe(0);
    expect(await page.locator('#coloane-nesalvate').isVisible()).toBe(true);
    await page.keyboard.press('Tab');
    await page.waitForTimeout(300);
    expect(saves.get()).toBe(0);
    await inView(page, `c07-coloana-nesalvata-${width}`);
    // Escape puts the saved field back.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Escape');
    expect(await select.inputValue()).toBe(saved);
    expect(await page.locator('#coloane-nesalvate').isVisible()).toBe(false);

    // To "not used", then Enter: one save, its notice, the samples read again.
    await page.keyboard.press('Home');
    expect(await select.inputValue()).toBe('');
    await page.waitForTimeout(300);
    expect(saves.get()).toBe(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedText(page), LOADED).toContain('Maparea coloanelor a fost salvată');
    expect(saves.get()).toBe(1);
    expect(await page.locator('#coloane-nesalvate').isVisible()).toBe(false);
    await page.reload();
    expect(await page.locator('#coloane tr:has(th:text-is("Km intrare")) select').inputValue()).toBe('');
    saves.stop();
    expect(problems).toEqual([]);
  }, 60_000);
});
