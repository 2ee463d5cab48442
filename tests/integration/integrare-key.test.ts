import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, publicBaseUrl } from '../../src/config';
import { KEY_TESTS_PER_ADDRESS, KEY_TESTS_PER_USER } from '../../src/web/integrare/key-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// POST /integrare/test-cheie: whose a key is, never the key itself; bad input refused; limited.
let t: TestApp;
let own: number;
let ownKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_PUBLIC_URL: 'https://gateway.service.ro/' });
  own = await t.createAccount('Service <b>Ionescu</b>');
  ownKey = await t.createKey(own);
  otherKey = await t.createKey(await t.createAccount('Alt service SRL'));
}, 60_000);
afterAll(() => t?.close());

async function signedIn(options: { admin?: boolean } = {}) {
  const web = browser(t);
  await web.login((await makeUser(t, own, options)).email);
  await web.get('/integrare');
  return web;
}

describe('the key tester', () => {
  it('names the own account (escaped), says only "another account" for another one, and never echoes the key', async () => {
    const web = await signedIn();
    const mine = await web.post('/integrare/test-cheie', { cheie: ` ${ownKey} ` }, { 'HX-Request': 'true' });
    const text = await mine.text();
    expect(mine.status).toBe(200);
    expect(text).toContain(`contul ${own}, Service &lt;b&gt;Ionescu&lt;/b&gt;`);
    expect(text).not.toContain(ownKey);
    const theirs = await (await web.post('/integrare/test-cheie', { cheie: otherKey }, { 'HX-Request': 'true' })).text();
    expect(theirs).toContain('validă, dar pentru alt cont');
    expect(theirs).not.toContain('Alt service SRL');
    expect(theirs).not.toContain(otherKey);
    const wrong = await (await web.post('/integrare/test-cheie', { cheie: 'gw_nu_exista_deloc' }, { 'HX-Request': 'true' })).text();
    expect(wrong).toContain('nu există sau a fost revocată');
    expect(wrong).not.toContain('gw_nu_exista_deloc');
  });

  it('tells an administrator whose the other key is', async () => {
    const web = await signedIn({ admin: true });
    const text = await (await web.post('/integrare/test-cheie', { cheie: otherKey }, { 'HX-Request': 'true' })).text();
    expect(text).toContain('Alt service SRL');
  });

  it('without htmx answers the whole page, with the result', async () => {
    const web = await signedIn();
    const res = await web.post('/integrare/test-cheie', { cheie: ownKey });
    const html = await res.text();
    expect(html).toContain('<h1>Integrare</h1>');
    expect(html).toContain('Cheia este validă pentru contul dvs.');
    // GATEWAY_PUBLIC_URL is the examples' address, its trailing slash dropped.
    expect(html).toContain('BASE = &quot;https://gateway.service.ro&quot;');
    expect(html).not.toContain('gateway.service.ro/&');
  });

  it('refuses blank, oversized, NUL and hostile input without echoing it, and a wrong CSRF token', async () => {
    const web = await signedIn();
    const hx = { 'HX-Request': 'true' };
    expect((await web.post('/integrare/test-cheie', { cheie: '   ' }, hx)).status).toBe(422);
    const long = await web.post('/integrare/test-cheie', { cheie: `gw_${'x'.repeat(300)}` }, hx);
    expect(long.status).toBe(422);
    expect(await long.text()).not.toContain('xxxxxxxx');
    expect((await web.post('/integrare/test-cheie', { cheie: 'gw_a\u0000b' }, hx)).status).toBe(422);
    const hostile = await web.post('/integrare/test-cheie', { cheie: '<script>alert(1)</script>' }, hx);
    expect(hostile.status).toBe(200);
    expect(await hostile.text()).not.toMatch(/<script|alert\(1\)/);
    expect((await web.post('/integrare/test-cheie', { cheie: ownKey, _csrf: 'gresit' }, hx)).status).toBe(403);
  });

  it(`allows ${KEY_TESTS_PER_USER} tests a minute per user, then 429 with Retry-After`, async () => {
    const web = await signedIn();
    for (let i = 0; i < KEY_TESTS_PER_USER; i++) expect((await web.post('/integrare/test-cheie', { cheie: `gw_incercare_${i}` }, { 'HX-Request': 'true' })).status).toBe(200);
    const limited = await web.post('/integrare/test-cheie', { cheie: ownKey }, { 'HX-Request': 'true' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const text = await limited.text();
    expect(text).toContain('Ați verificat prea multe chei');
    expect(text).not.toContain('Service');
  });

  it(`allows ${KEY_TESTS_PER_ADDRESS} tests a minute per address, whichever users make them`, async () => {
    // The users above already spent some of this address's minute: count what is left.
    let answered = 0;
    let limited: Response | undefined;
    for (let user = 0; user < 8 && !limited; user++) {
      const web = await signedIn();
      for (let i = 0; i < KEY_TESTS_PER_USER - 1 && !limited; i++) {
        const res = await web.post('/integrare/test-cheie', { cheie: `gw_adresa_${user}_${i}` }, { 'HX-Request': 'true' });
        if (res.status === 429) limited = res;
        else answered++;
      }
    }
    expect(limited?.status).toBe(429);
    expect(answered).toBeLessThan(KEY_TESTS_PER_ADDRESS);
  });

  it('is refused without a session', async () => {
    const res = await t.app.request('http://localhost/integrare/test-cheie', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost', Host: 'localhost' },
      body: `cheie=${ownKey}`,
    });
    expect([302, 303, 401, 403]).toContain(res.status);
    expect(await res.text()).not.toContain(ownKey);
  });
});

describe('GATEWAY_PUBLIC_URL', () => {
  it("defaults to this host's loopback and port, drops a trailing slash, refuses what is not http(s)", () => {
    expect(publicBaseUrl(parseConfig({ PORT: '8080' }))).toBe('http://127.0.0.1:8080');
    expect(publicBaseUrl(parseConfig({ GATEWAY_PUBLIC_URL: 'https://gw.service.ro/' }))).toBe('https://gw.service.ro');
    expect(() => parseConfig({ GATEWAY_PUBLIC_URL: 'ftp://gw.service.ro' })).toThrow(/GATEWAY_PUBLIC_URL/);
    expect(() => parseConfig({ GATEWAY_PUBLIC_URL: 'gw.service.ro' })).toThrow(/GATEWAY_PUBLIC_URL/);
  });
});
