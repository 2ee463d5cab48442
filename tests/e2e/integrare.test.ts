import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/clients/examples';
import { KEY_TESTS_PER_USER } from '../../src/web/integrare/key-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchChromium, shot, signIn } from '../helpers/chromium';
import { serveOnLoopback } from '../helpers/serve';
import { FAST_SCRYPT, makeUser, PASSWORD } from '../helpers/web';

// Integrare in real Chromium at a desktop and a phone width: every language tab, the copy
// button (what the clipboard holds is what the block shows), the tab remembered after a
// reload, the key tester (valid, invalid, limited). E2E_SCREENSHOTS=<dir> keeps each screen.
let t: TestApp;
let server: Awaited<ReturnType<typeof serveOnLoopback>>;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let key: string;
let email: string;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const accountId = await t.createAccount('Service Ionescu');
  key = await t.createKey(accountId);
  email = (await makeUser(t, accountId)).email;
  server = await serveOnLoopback(t.app.fetch);
  browser = await launchChromium();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

/** The page, signing in first when the browser has no session yet. */
async function openPage() {
  const { page } = browser;
  await page.goto(`${server.base}/integrare`);
  if (!page.url().endsWith('/login')) return;
  await signIn(page, server.base, email, PASSWORD);
  await page.goto(`${server.base}/integrare`);
}

describe('Integrare in Chromium', () => {
  it.each([
    [1366, 860],
    [390, 844],
  ])(
    'at %i px: every tab, copy, the tab remembered, no sideways scroll',
    async (width, height) => {
      const { page, problems } = browser;
      await page.setViewportSize({ width, height });
      await openPage();
      await page.evaluate("localStorage.removeItem('integrare.limbaj')");
      await page.reload();
      for (const language of LANGUAGES) {
        await page.click(`[role=tab][data-lang="${language}"]`);
        expect(await page.getAttribute(`[role=tab][data-lang="${language}"]`, 'aria-selected')).toBe('true');
        expect(await page.isVisible(`#ex-${language}-prezentare`)).toBe(true);
        const hidden = await page.locator('[data-lang-panel]:not([hidden])').count();
        expect(hidden).toBe(1);
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
        await shot(page, `integrare-${width}-${language}`);
      }
      // Copy: the clipboard holds the block's text, exactly.
      await page.click('[role=tab][data-lang="python"]');
      await page.click('button[data-copy="ex-python-prezentare"]');
      await expect.poll(() => page.textContent('button[data-copy="ex-python-prezentare"]')).toBe('Copiat');
      const copied = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(copied).toBe(await page.textContent('#ex-python-prezentare'));
      expect(copied).toContain('INLOCUITI_CU_CHEIA_DVS');
      // Remembered after a reload.
      await page.reload();
      expect(await page.getAttribute('[role=tab][data-lang="python"]', 'aria-selected')).toBe('true');
      expect(await page.isVisible('#ex-curl-prezentare')).toBe(false);
      expect(problems).toEqual([]);
    },
    90_000,
  );

  it('the key tester: valid, invalid, then limited', async () => {
    const { page, problems } = browser;
    await page.setViewportSize({ width: 1366, height: 860 });
    await openPage();
    await page.fill('#cheie', key);
    await page.click('form.key-test button[type=submit]');
    await page.waitForSelector('#cheie-rezultat .notice.ok');
    expect(await page.textContent('#cheie-rezultat')).toContain('validă pentru contul dvs.');
    expect(await page.content()).not.toContain(key);
    await shot(page, 'integrare-cheie-valida');
    await page.fill('#cheie', 'gw_cheie_gresita');
    await page.click('form.key-test button[type=submit]');
    await page.waitForSelector('#cheie-rezultat .notice.error');
    expect(await page.textContent('#cheie-rezultat')).toContain('revocată');
    await shot(page, 'integrare-cheie-invalida');
    for (let i = 2; i <= KEY_TESTS_PER_USER; i++) {
      await Promise.all([page.waitForResponse((r) => r.url().endsWith('/integrare/test-cheie')), page.click('form.key-test button[type=submit]')]);
    }
    await page.click('form.key-test button[type=submit]');
    await expect.poll(() => page.textContent('#cheie-rezultat')).toContain('prea multe chei');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'integrare-cheie-limitata-390');
    expect(problems).toEqual([]);
  }, 90_000);
});
