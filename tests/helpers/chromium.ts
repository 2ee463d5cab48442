import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Debian's chromium (installed by .ci/run) in a fresh profile. Every page error, console
 * error (a CSP refusal is one), 404 and 5xx is collected: a test asserts there were none.
 */
export async function launchChromium(extraArgs: string[] = []): Promise<{ context: BrowserContext; page: Page; problems: string[]; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'gateway-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: [...ARGS, ...extraArgs],
    locale: 'ro-RO',
    timezoneId: 'Europe/Bucharest',
    viewport: { width: 1360, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  // A refused status is logged as "Failed to load resource": the answers themselves are
  // judged instead (a 401 or 409 may be the point of a test; a 404 or a 5xx never is).
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() === 404 || response.status() >= 500) problems.push(`${response.status()}: ${response.url()}`);
  });
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** With E2E_SCREENSHOTS=<dir>, a full-page screenshot of the screen as it is, to look at. */
export async function shot(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** Signs in through the login form of the gateway at `base`, as a clerk does, and waits for the home page. */
export async function signIn(page: Page, base: string, email: string, password: string) {
  await page.goto(`${base}/login`);
  await page.fill('#email', email);
  await page.fill('#parola', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/`);
}
