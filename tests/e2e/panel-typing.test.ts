import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { makeSubmission } from '../helpers/factories';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Issue 31, blocker 1: a clerk types "87.400" in a submission's panel, moving with Tab as clerks
// do. It is eighty-seven thousand four hundred km, stored and queued as such, never 87.4; "87,4"
// is refused with its reason and nothing is stored.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let key: string;
let email: string;

async function heldSubmission(nrInm: string): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ nrInm, odometruFinal: 'necitit' }) });
  const body = (await res.json()) as { submission_id: number; status: string };
  expect(body.status).toBe('needs_data');
  return body.submission_id;
}

async function stored(id: number) {
  const [row] = await t.ctx.sql<{ status: string; odometru: unknown; vin: string; nr: string }[]>`
    SELECT status, payload_json->'odometruFinal' AS odometru, payload_json->>'vin' AS vin, payload_json->>'nrInm' AS nr FROM submissions WHERE id = ${id}`;
  return row!;
}

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount('Service Popescu');
  key = await t.createKey(account);
  email = (await makeUser(t, account, { email: 'ana@service-popescu.ro' })).email;
  server = await serveOnLoopback(t.app.fetch);
  browser = await launchChromium();
  await signIn(browser.page, server.base, email, PASSWORD);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

async function typeInPanel(id: number, fields: { vin?: string; nrInm?: string; odometruFinal: string }) {
  const { page } = browser;
  await page.goto(`${server.base}/trimiteri/${id}`);
  await page.waitForSelector('#corectie-vin');
  for (const [name, value] of Object.entries(fields)) {
    await page.click(`#corectie-${name}`);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(value);
    await page.keyboard.press('Tab');
  }
  await page.click('form.correct button[type=submit]');
}

describe('the panel reads numbers as a Romanian clerk writes them', () => {
  it('"87.400" typed with Tab is stored and queued as 87400 km; a spaced VIN and plate are read without their spaces', async () => {
    const id = await heldSubmission('B1TYPE');
    await typeInPanel(id, { vin: 'WDB 1234561A 654321', nrInm: 'b 101 abc', odometruFinal: '87.400' });
    await expect.poll(async () => (await stored(id)).status).toBe('queued');
    expect(await stored(id)).toMatchObject({ odometru: 87400, vin: 'WDB1234561A654321', nr: 'B101ABC' });
    await shot(browser.page, 'panou-87400');
    expect(browser.problems).toEqual([]);
  }, 60_000);

  it.each(['87 400', '87 400 km', '87,400'])(
    '"%s" is 87400 km too',
    async (odometruFinal) => {
      // Each its own vehicle: a correction to another submission's content is refused as a twin.
      const id = await heldSubmission(`B${odometruFinal.length}TYP`);
      await typeInPanel(id, { vin: `WDB1234561A6543${odometruFinal.length}${odometruFinal.includes(',') ? 9 : 8}`.slice(0, 17), odometruFinal });
      await expect.poll(async () => (await stored(id)).status).toBe('queued');
      expect((await stored(id)).odometru).toBe(87400);
    },
    60_000,
  );
  it('"87,4" is refused with its reason at the field, as typed, and nothing is stored', async () => {
    const id = await heldSubmission('B2FRAC');
    await typeInPanel(id, { odometruFinal: '87,4' });
    const error = browser.page.locator('#corectie-odometruFinal-eroare');
    await expect.poll(async () => (await error.count()) === 1 && (await error.textContent())).toContain('kilometri întregi');
    expect(await error.textContent()).toContain('87,4 are zecimale');
    expect(await browser.page.inputValue('#corectie-odometruFinal')).toBe('87,4');
    expect(await stored(id)).toMatchObject({ status: 'needs_data', odometru: 'necitit' });
    await shot(browser.page, 'panou-87-4');
  }, 60_000);
});
