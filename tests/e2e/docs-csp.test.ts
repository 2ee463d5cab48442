import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, shot } from '../helpers/chromium';
import { startLiveGateway } from '../helpers/integrare';

// Swagger UI at /docs under its Content-Security-Policy, in real Chromium: it must render the
// operations and try one out with no CSP refusal (each is a console error the helper collects).
// The document's server is GATEWAY_PUBLIC_URL: the gateway's own address here, as an operator sets it.
let server: Awaited<ReturnType<typeof startLiveGateway>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  server = await startLiveGateway();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('/docs in Chromium', () => {
  it('renders Swagger UI and tries an operation out, with no CSP violation', async () => {
    const { page, problems } = browser;
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    // A string: the page's types are not this project's (no DOM lib).
    await page.addInitScript("document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI))");
    const answer = await page.goto(`${server.base}/docs`);
    expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator('.opblock-summary').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    await expect.poll(() => page.locator('.info .title').textContent()).toBeTruthy();

    // Try out GET /v1/ping: the request is made from the page (connect-src) and answered.
    const ping = page.locator('.opblock', { has: page.locator('[data-path="/v1/ping"]') }).first();
    await ping.locator('.opblock-summary').click();
    await ping.getByRole('button', { name: 'Try it out' }).click();
    await ping.getByRole('button', { name: 'Execute' }).click();
    await ping.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    await shot(page, 'docs');
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('"Try it out" with the document’s own examples: the dry run answers queued, the upload stages the file', async () => {
    const { page, problems } = browser;
    const key = await server.t.createKey(await server.t.createAccount('Service docs'));
    await page.goto(`${server.base}/docs`);
    await page.locator('.opblock-summary').first().waitFor();
    // The key once, in Authorize, as a user would.
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('.modal-ux input[type=text]').first().fill(key);
    await page.locator('.modal-ux button.modal-btn.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();

    const dryRun = page.locator('#operations-prezentari-dryRun');
    await dryRun.locator('.opblock-summary').click();
    await dryRun.getByRole('button', { name: 'Try it out' }).click();
    await dryRun.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => dryRun.locator('.live-responses-table tbody .response-col_status').first().textContent()).toContain('200');
    expect(await dryRun.locator('.live-responses-table tbody .response-col_description').first().textContent()).toContain('"status_estimat": "queued"');

    const upload = page.locator('#operations-import-upload');
    await upload.locator('.opblock-summary').click();
    await upload.getByRole('button', { name: 'Try it out' }).click();
    await upload.locator('input[type=file]').setInputFiles(join(import.meta.dirname, '..', '..', 'docs/examples/prestatii-exemplu.csv'));
    await upload.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => upload.locator('.live-responses-table tbody .response-col_status').first().textContent()).toContain('201');
    await shot(page, 'docs-try-upload');
    expect(problems).toEqual([]);
  }, 60_000);
});
