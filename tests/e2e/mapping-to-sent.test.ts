import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { serveOnLoopback } from '../helpers/serve';
import { PASSWORD } from '../helpers/web';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';
import { createUser } from '../../src/services/users/users';

// A held submission mapped from the detail panel in Chromium, then delivered by a real
// worker to the simulated registry: the list shows it sent.
let h: WorkerHarness;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let submissionId: number;
const email = 'ion@service-sandbox.ro';

beforeAll(async () => {
  h = await startWorkerHarness({ GATEWAY_SCRYPT_N: '1024' });
  const accountId = await h.createAccount('Service Sandbox', { username: 'demo', password: 'demo' });
  await createUser(h.app.db, { accountId, email, password: PASSWORD, admin: false, scryptN: 1024 });
  ({ id: submissionId } = await h.submit(accountId, { prestatii: [{ cod_op_service: 'SCHIMB-ULEI-MOTOR', denumire: 'Schimb ulei motor' }], on_unmapped_error: false }));
  await h.start();
  server = await serveOnLoopback(createApp(h.app).fetch);
  base = server.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await h?.close();
});

describe('mapping a held submission until it is sent', () => {
  it('maps the code in the panel; the worker sends it; the list shows it sent', async () => {
    const { page, problems } = browser;
    await signIn(page, base, email, PASSWORD);

    // The mapping editor lists the code, with its suggestion preselected.
    await page.click('.top nav a:has-text("Mapări")');
    await page.waitForSelector('#mapari tbody tr');
    expect(await page.locator('#mapari tbody tr').first().textContent()).toContain('SCHIMB-ULEI-MOTOR');
    await shot(page, '11-mapari-de-mapat');
    await page.click('.top nav a:has-text("Trimiteri")');

    await page.click(`#t-${submissionId} button`);
    await page.waitForSelector('#panou form.map');
    await shot(page, '12-panou-mapare');
    // The suggestion is preselected; choose the registry's periodic service explicitly.
    await page.selectOption('#panou select[name=cod_prestatie]', 'OE-3');
    await page.click('#panou button:has-text("Salvează maparea")');
    await page.waitForSelector('#panou .notice.ok');
    expect(await page.locator('#panou .notice.ok').textContent()).toContain('o trimitere a fost repusă în coadă');
    await shot(page, '13-panou-mapat');
    await page.keyboard.press('Escape');

    await h.waitForStatus(submissionId, 'sent', 20_000);
    await page.click('#coada .chips a:has-text("Toate")');
    await expect.poll(() => page.locator(`#t-${submissionId} .chip`).textContent(), { timeout: 15_000 }).toBe('Trimisă');
    expect(problems).toEqual([]);
  }, 60_000);
});
