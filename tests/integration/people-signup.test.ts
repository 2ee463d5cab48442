import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDigit, readCui } from '../../src/domain/cui';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT } from '../helpers/web';

// Issue 35: a workshop signs up (GATEWAY_SIGNUP), with its CUI's check digit verified, one
// account per CUI, a limit per client address, and no more said about a known CUI or address
// than the form must say.

let t: TestApp;
const PASSWORD = 'parola-service-nou-1';

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_SIGNUP: 'open' });
});
afterAll(() => t.close());

const counts = async (app: TestApp = t) => {
  const [row] = await app.ctx.sql<{ accounts: number; users: number }[]>`SELECT (SELECT count(*)::int FROM accounts) AS accounts, (SELECT count(*)::int FROM web_users) AS users`;
  return row!;
};

/** Fills the sign-up form as a browser would: the page first (its form token), then the post. */
async function signUp(b: ReturnType<typeof browser>, fields: { nume?: string; cui: string; email: string; parola?: string }, headers: Record<string, string> = {}) {
  await b.get('/inregistrare');
  return b.post('/inregistrare', { nume: 'Service Popescu', parola: PASSWORD, ...fields }, headers);
}

describe('the CUI', () => {
  it('is digits, optionally after RO, with ANAF’s check digit', () => {
    expect(readCui('RO18547290')).toEqual({ ok: true, cui: '18547290' });
    expect(readCui(' ro 14399840 ')).toEqual({ ok: true, cui: '14399840' });
    expect(readCui('18547291')).toMatchObject({ ok: false, problem: expect.stringContaining('Cifra de control') });
    expect(readCui('RO-18547290').ok).toBe(false);
    expect(readCui('1').ok).toBe(false);
    expect(readCui('12345678901').ok).toBe(false);
    expect(checkDigit('1854729')).toBe(0);
  });
});

describe('sign-up', () => {
  it('creates the account and its administrator, signs them in and opens the import screen', async () => {
    const b = browser(t);
    const res = await signUp(b, { cui: 'RO 13548146', email: 'Ana@Service-Popescu.ro' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const home = await b.get('/');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Ana@Service-Popescu.ro');
    const [row] = await t.ctx.sql`SELECT a.name, a.cui, u.role, u.is_admin FROM web_users u JOIN accounts a ON a.id = u.account_id WHERE u.email = 'Ana@Service-Popescu.ro'`;
    expect(row).toEqual({ name: 'Service Popescu', cui: '13548146', role: 'administrator', is_admin: false });
    expect((await b.get('/cont/oameni')).status).toBe(200);
  });

  it('refuses a wrong check digit (422, the field named), a second account for a CUI and a known address (409), leaving nothing', async () => {
    const before = await counts();
    const wrongDigit = await signUp(browser(t), { cui: '18547291', email: 'x1@service.ro' });
    expect(wrongDigit.status).toBe(422);
    const wrongText = await wrongDigit.text();
    expect(wrongText).toContain('Cifra de control');
    expect(wrongText).toMatch(/id="cui"[^>]*aria-invalid="true"/);
    // The form keeps what was typed, never the password.
    expect(wrongText).toContain('value="x1@service.ro"');
    expect(wrongText).not.toContain(PASSWORD);

    const sameCui = await signUp(browser(t), { cui: 'ro13548146', email: 'altcineva@service.ro' });
    expect(sameCui.status).toBe(409);
    expect(await sameCui.text()).toContain('Pentru acest CUI există deja un cont');

    const knownEmail = await signUp(browser(t), { nume: 'Alt service', cui: '14399840', email: 'ana@service-popescu.ro' });
    expect(knownEmail.status).toBe(409);
    const knownText = await knownEmail.text();
    expect(knownText).toContain('nu poate fi folosită pentru un cont nou');
    // Nothing of whose address it is: not the other account's name or CUI.
    expect(knownText).not.toContain('13548146');
    expect(knownText).not.toContain('Service Popescu');
    expect(await counts()).toEqual(before);

    const shortPassword = await signUp(browser(t), { cui: '14399840', email: 'scurt@service.ro', parola: 'scurta' });
    expect(shortPassword.status).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it('refuses a post without its form token, or from another site (403)', async () => {
    const before = await counts();
    const b = browser(t);
    await b.get('/inregistrare');
    expect((await b.post('/inregistrare', { _csrf: '', nume: 'X', cui: '14399840', email: 'y@service.ro', parola: PASSWORD })).status).toBe(403);
    expect((await signUp(browser(t), { cui: '14399840', email: 'y@service.ro' }, { Origin: 'https://alt-site.example' })).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('is limited per client address (429 with Retry-After), before any lookup', async () => {
    const limited = await startTestApp({ ...FAST_SCRYPT, GATEWAY_SIGNUP: 'open', GATEWAY_SIGNUP_PER_HOUR: '2' });
    try {
      const before = await counts(limited);
      const b = browser(limited);
      expect((await signUp(b, { cui: '18547291', email: 'a@service.ro' })).status).toBe(422);
      expect((await signUp(b, { cui: '18547291', email: 'a@service.ro' })).status).toBe(422);
      const third = await signUp(b, { cui: '13548146', email: 'b@service.ro' });
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await third.text()).toContain('Prea multe înregistrări');
      expect((await counts(limited)).accounts).toBe(before.accounts);
    } finally {
      await limited.close();
    }
  });

  it('closed: the page and the post say so (403) and create nothing; the sign-in page does not link to it', async () => {
    const closed = await startTestApp({ ...FAST_SCRYPT, GATEWAY_SIGNUP: 'closed' });
    try {
      const before = await counts(closed);
      const b = browser(closed);
      const page = await b.get('/inregistrare');
      expect(page.status).toBe(403);
      expect(await page.text()).toContain('Înregistrarea conturilor noi este închisă');
      expect((await b.post('/inregistrare', { nume: 'X', cui: '14399840', email: 'z@service.ro', parola: PASSWORD })).status).toBe(403);
      expect(await counts(closed)).toEqual(before);
      expect(await (await b.get('/login')).text()).not.toContain('/inregistrare');
      expect(await (await browser(t).get('/login')).text()).toContain('href="/inregistrare"');
    } finally {
      await closed.close();
    }
  });
});
