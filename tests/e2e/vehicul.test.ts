import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { makeSubmission } from '../helpers/factories';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// The vehicle's page in Chromium: reached from the list by the keyboard, the records in date
// order with the odometer that goes down marked on the chart and in the list, the registry id
// of the sent ones, each submission one Enter away; at 390 px without sideways scrolling; and
// the same page without JavaScript. Another account's VIN is the page of an unknown one.
// E2E_SCREENSHOTS=<dir> keeps the screens.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let email: string;
const ids: number[] = [];

const VIN = 'WVWZZZ1KZ6W123456';
const OTHER_VIN = 'TMBJJ7NE5F0123456';
const UNKNOWN_VIN = 'VF1RFB00X51234567';
const LOADED = { timeout: 10_000 };

// Posted out of date order: the page sorts them. 2025-05-20 reads 80,000 km after 98,000 were recorded.
const VISITS = [
  { dataPrestatie: '2025-06-30', odometruFinal: 104_500, prestatii: [{ cod_prestatie: 'OE-3' }] },
  { dataPrestatie: '2025-01-10', odometruFinal: 91_200, prestatii: [{ cod_prestatie: 'OE-3' }] },
  { dataPrestatie: '2025-03-14', odometruFinal: 98_000, prestatii: [{ cod_prestatie: 'OE-3' }] },
  { dataPrestatie: '2025-05-20', odometruFinal: 80_000, prestatii: [{ cod_prestatie: 'OE-3' }] },
  { dataPrestatie: '2025-09-02', odometruFinal: 112_300, prestatii: [{ cod_prestatie: 'OE-3' }] },
];

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const accountId = await t.createAccount('Service Ionescu');
  const key = await t.createKey(accountId);
  ({ email } = await makeUser(t, accountId, { email: 'maria@service-ionescu.ro' }));
  for (const visit of VISITS) {
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ vin: VIN, nrInm: 'B77VIN', ...visit }) });
    ids.push(Number(((await res.json()) as { submission_id: number }).submission_id));
  }
  // The first two sent: the registry's ids on the page.
  await t.ctx.sql`UPDATE submissions SET status = 'sent', registry_id = 'RAR-2025-000' || id::text, sent_at = now() WHERE id IN (${ids[1]!}, ${ids[2]!})`;
  // Another account's records, of this VIN and of its own.
  const other = await t.createAccount('Alt service');
  const otherKey = await t.createKey(other);
  await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission({ vin: VIN, dataPrestatie: '2025-04-01', odometruFinal: 5 }) });
  await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission({ vin: OTHER_VIN }) });
  server = await serveOnLoopback(t.app.fetch);
  base = server.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

async function signedIn(page: Page) {
  await page.goto(`${base}/`);
  if (page.url().includes('/login')) await signIn(page, base, email, PASSWORD);
}

/** Tab until the focused element matches (a keyboard user's way there), at most `max` presses. */
async function tabTo(page: Page, selector: string, max = 80) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  throw new Error(`never focused ${selector}`);
}

const rowDates = (page: Page) => page.locator('.vehicle-records tbody td[data-label="Data"]').allTextContents();

describe('the vehicle page', () => {
  it('is reached from the list with the keyboard and shows the records in date order, the drop marked, the registry ids, each submission a link', async () => {
    const { page, problems } = browser;
    await page.setViewportSize({ width: 1366, height: 900 });
    await signedIn(page);
    await page.goto(`${base}/?vedere=toate`);
    await tabTo(page, 'a.vin-link');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/vehicul/${VIN}`, LOADED);
    expect(await page.locator('h1').textContent()).toContain(VIN);
    expect(await rowDates(page)).toEqual(['10.01.2025', '14.03.2025', '20.05.2025', '30.06.2025', '02.09.2025']);
    // The drop: one row marked, one triangle on the chart, said in words.
    const down = page.locator('.vehicle-records tr.went-down');
    expect(await down.count()).toBe(1);
    expect(await down.textContent()).toContain('scade: sub 98.000 km înregistrați înainte');
    expect(await page.locator('svg.odo-chart .odo-down').count()).toBe(1);
    expect(await page.locator('svg.odo-chart .odo-point').count()).toBe(4);
    expect(await page.locator('.notice.warn').textContent()).toContain('Kilometrajul scade o dată');
    // The screen readers' table beside the chart.
    expect(await page.locator('#grafic-valori tbody tr').count()).toBe(5);
    expect(await page.locator('#grafic-valori').textContent()).toContain('Scade: sub 98.000 km');
    // The sent ones carry the registry's id; another account's record of the VIN is not there.
    expect(await page.locator('.vehicle-records').textContent()).toContain(`RAR-2025-000${ids[1]}`);
    expect(await page.locator('.vehicle-records').textContent()).not.toContain('5 km');
    await shot(page, 'vehicul-1366');
    // Each submission one Enter away.
    await tabTo(page, `a[href="/trimiteri/${ids[3]}"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/trimiteri/${ids[3]}`, LOADED);
    await page.waitForSelector('#panou dl');
    // The panel links the VIN back to its page.
    expect(await page.locator(`#panou a[href="/vehicul/${VIN}"]`).count()).toBe(1);
    expect(problems).toEqual([]);
  }, 60_000);

  it('fits 390 px without scrolling sideways', async () => {
    const { page, problems } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await signedIn(page);
    await page.goto(`${base}/vehicul/${VIN}`);
    const sideways = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    const wide = await page.evaluate(
      '[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName + "." + e.getAttribute("class") + " " + Math.round(e.getBoundingClientRect().right)).slice(0, 8).join(" | ")',
    );
    expect(sideways, String(wide)).toBeLessThanOrEqual(0);
    const box = await page.locator('svg.odo-chart').boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(390);
    // Its own box scrolls, not the page.
    expect(await page.locator('.odo-scroll').evaluate((e) => (e as { clientWidth: number }).clientWidth <= 390)).toBe(true);
    expect(box!.height).toBeGreaterThan(80);
    await shot(page, 'vehicul-390');
    expect(problems).toEqual([]);
  }, 30_000);

  it('answers another account’s VIN as an unknown one: the same page, 404', async () => {
    const { page, problems } = browser;
    await signedIn(page);
    const other = await page.goto(`${base}/vehicul/${OTHER_VIN}`);
    const otherText = (await page.locator('main').textContent())!.replace(OTHER_VIN, '<VIN>');
    const unknown = await page.goto(`${base}/vehicul/${UNKNOWN_VIN}`);
    const unknownText = (await page.locator('main').textContent())!.replace(UNKNOWN_VIN, '<VIN>');
    expect(other!.status()).toBe(404);
    expect(unknown!.status()).toBe(404);
    expect(otherText.replace(OTHER_VIN.slice(0, 40), '<VIN>')).toBe(unknownText.replace(UNKNOWN_VIN.slice(0, 40), '<VIN>'));
    expect(unknownText).toContain('Nu există nicio prestație pentru acest VIN în contul dumneavoastră');
    await shot(page, 'vehicul-necunoscut');
    // The two 404s were the point.
    problems.splice(0, problems.length, ...problems.filter((p) => !p.startsWith('404: ')));
    expect(problems).toEqual([]);
  }, 30_000);

  it('reads the same without JavaScript: the chart is in the page, the table beside it', async () => {
    const plain = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const context = await plain.newContext({ javaScriptEnabled: false, locale: 'ro-RO', timezoneId: 'Europe/Bucharest', viewport: { width: 390, height: 844 } });
      await context.addCookies(await browser.context.cookies());
      const page = await context.newPage();
      const res = await page.goto(`${base}/vehicul/${VIN}`);
      expect(res!.status()).toBe(200);
      expect(await page.locator('svg.odo-chart circle').count()).toBe(4);
      expect(await page.locator('svg.odo-chart title').first().textContent()).toContain('scade o dată');
      expect(await rowDates(page)).toHaveLength(5);
      await shot(page, 'vehicul-fara-js');
    } finally {
      await plain.close();
    }
  }, 30_000);
});
