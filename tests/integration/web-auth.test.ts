import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser, PASSWORD, PUBLIC_FORM_PATHS, WEB_FORM_PATHS } from '../helpers/web';

let t: TestApp;
let accountId: number;
let user: { id: number; email: string };

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_LOGIN_FAILURES_PER_EMAIL: '3' });
  accountId = await t.createAccount();
  user = await makeUser(t, accountId);
});
afterAll(() => t.close());

describe('sign-in', () => {
  it('a page without a session redirects to /login; an htmx request is told to load /login whole', async () => {
    const b = browser(t);
    const page = await b.get('/');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login');
    const fragment = await b.get('/_fragments/coada', { 'HX-Request': 'true' });
    expect(fragment.headers.get('hx-redirect')).toBe('/login');
  });

  it('signs in with the right password (303 to /, HttpOnly SameSite=Lax cookie), signs out', async () => {
    const b = browser(t);
    const login = await b.login(user.email);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('gw_sesiune='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const home = await b.get('/');
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain('<meta name="csrf-token"');
    expect(html).toContain(user.email);
    // The session is stored only as a hash.
    const token = b.cookies.get('gw_sesiune')!;
    const rows = await t.ctx.sql`SELECT token_hash FROM web_sessions WHERE token_hash = ${token}`;
    expect(rows).toHaveLength(0);

    const out = await b.post('/logout');
    expect(out.status).toBe(303);
    expect((await b.get('/')).status).toBe(303);
  });

  it('a wrong password and an unknown e-mail get the same message; the form keeps the e-mail only', async () => {
    const wrong = await (await browser(t).login(user.email, 'alta-parola-gresita')).text();
    const unknown = await (await browser(t).login('nimeni@service.ro', PASSWORD)).text();
    const message = (html: string) => /<div class="notice error" role="alert">(.*?)<\/div>/s.exec(html)?.[1];
    expect(message(wrong)).toBeDefined();
    expect(message(wrong)).toBe(message(unknown));
    expect(wrong).not.toContain('alta-parola-gresita');
  });

  it('repeated failures for one e-mail are limited (429 with Retry-After), and the right password then waits too', async () => {
    const email = (await makeUser(t, accountId)).email;
    for (let i = 0; i < 3; i++) expect((await browser(t).login(email, 'gresit-gresit-gresit')).status).toBe(401);
    const limited = await browser(t).login(email, 'gresit-gresit-gresit');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await browser(t).login(email)).status).toBe(429);
  });

  it('a login post without the form token, or from another site, is refused', async () => {
    const b = browser(t);
    await b.get('/login');
    const noToken = await b.post('/login', { _csrf: '', email: user.email, parola: PASSWORD });
    expect(noToken.status).toBe(403);
    const b2 = browser(t);
    await b2.get('/login');
    const crossSite = await b2.post('/login', { email: user.email, parola: PASSWORD }, { Origin: 'https://rau.example' });
    expect(crossSite.status).toBe(403);
  });

  it('a session is rotated at sign-in, ends when idle, and ends when the user is disabled', async () => {
    // A token planted before sign-in (session fixation) is never the session's token.
    const b = browser(t);
    b.cookies.set('gw_sesiune', 'token-plantat-de-altcineva');
    await b.login(user.email);
    expect(b.cookies.get('gw_sesiune')).not.toBe('token-plantat-de-altcineva');
    expect((await b.get('/')).status).toBe(200);
    // Signed in already: /login leads to the dashboard.
    expect((await b.get('/login')).headers.get('location')).toBe('/');

    await t.ctx.sql`UPDATE web_sessions SET last_seen_at = now() - interval '2 hours' WHERE user_id = ${user.id}`;
    expect((await b.get('/')).status).toBe(303);

    const other = await makeUser(t, accountId);
    const b2 = browser(t);
    await b2.login(other.email);
    expect((await b2.get('/')).status).toBe(200);
    await t.ctx.sql`UPDATE web_users SET disabled_at = now() WHERE id = ${other.id}`;
    expect((await b2.get('/')).status).toBe(303);
  });
});

describe('CSRF and headers', () => {
  it('a signed-in post without the token is 403; with the header or the field it passes', async () => {
    const b = browser(t);
    await b.login(user.email);
    await b.get('/');
    expect((await b.htmx('POST', '/trimitere/999999/repune', { 'X-CSRF-Token': 'x' })).status).toBe(403);
    expect((await b.htmx('POST', '/trimitere/999999/repune')).status).toBe(404);
    expect((await b.post('/trimitere/999999/repune', { _csrf: 'nu' })).status).toBe(403);
    expect((await b.post('/trimitere/999999/repune')).status).toBe(404);
    // Another site's page, even with a token it could not know anyway.
    expect((await b.htmx('POST', '/trimitere/999999/repune', { Origin: 'https://rau.example' })).status).toBe(403);
  });

  it('every page has a CSP without inline script or eval, same-origin referrers, no framing', async () => {
    const b = browser(t);
    const paths = ['/login', '/', '/mapari', '/jurnal', '/cont', '/integrare'];
    const responses = [await b.get('/login')];
    await b.login(user.email);
    for (const path of paths.slice(1)) responses.push(await b.get(path));
    for (const [i, res] of responses.entries()) {
      const path = paths[i];
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe');
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(res.headers.get('content-type'), path).toMatch(/charset=utf-8/i);
    }
  });

  it('a sign-in form token the server did not make is refused, even as a matching cookie and field', async () => {
    const forger = browser(t);
    forger.cookies.set('gw_autentificare', 'jeton-inventat');
    expect((await forger.post('/login', { _csrf: 'jeton-inventat', email: user.email, parola: PASSWORD })).status).toBe(403);
    // A real token with its expiry pushed back, or its tag changed: refused too.
    const b = browser(t);
    await b.get('/login');
    const [nonce, expires, tag] = b.csrf()!.split('.');
    for (const altered of [`${nonce}.${Number(expires) + 86_400}.${tag}`, `${nonce}.${expires}.${tag!.slice(0, -1)}${tag!.endsWith('A') ? 'B' : 'A'}`]) {
      const other = browser(t);
      other.cookies.set('gw_autentificare', altered);
      expect((await other.post('/login', { _csrf: altered, email: user.email, parola: PASSWORD })).status, altered).toBe(403);
    }
    // The pair the server made signs in.
    expect((await b.post('/login', { email: user.email, parola: PASSWORD })).status).toBe(303);
  });

  it('signed-in pages, fragments, redirects and the sign-in form are never stored; static files are cached', async () => {
    const stranger = browser(t);
    for (const res of [await stranger.get('/login'), await stranger.get('/'), await stranger.get('/_fragments/coada', { 'HX-Request': 'true' })]) {
      expect(res.headers.get('cache-control'), res.url).toBe('no-store');
    }
    const b = browser(t);
    const login = await b.login(user.email);
    expect(login.headers.get('cache-control')).toBe('no-store');
    for (const path of ['/', '/mapari', '/jurnal', '/cont', '/integrare', '/_fragments/coada', '/_fragments/mapari']) {
      const res = await b.get(path, path.startsWith('/_fragments') ? { 'HX-Request': 'true' } : {});
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }
    const notFound = await b.get('/_fragments/trimitere/999999', { 'HX-Request': 'true' });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('cache-control')).toBe('no-store');
    expect((await b.post('/logout')).headers.get('cache-control')).toBe('no-store');
    expect((await b.get('/static/app.js')).headers.get('cache-control')).not.toContain('no-store');
  });

  it('/docs has a CSP that lets Swagger UI run and no page frame it, and nosniff; /v1 and /openapi.json answers have nosniff', async () => {
    for (const path of ['/docs', '/docs/init.js', '/docs/assets/swagger-ui-bundle.js']) {
      const res = await t.app.request(path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    expect((await t.app.request('/openapi.json')).headers.get('x-content-type-options')).toBe('nosniff');
    const key = await t.createKey(accountId);
    const answers = [
      await t.call('GET', '/v1/ping'),
      await t.call('GET', '/v1/ping', { key }),
      await t.call('GET', '/v1/nu-exista', { key }),
      await t.call('POST', '/v1/prezentari', { key, body: '{"rupt' }),
      await t.call('GET', '/v1/prezentari/999999', { key }),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 200, 404, 422, 404]);
    for (const res of answers) expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
  });

  it('the API keeps its JSON answers: an unknown /v1 path is the JSON 404, not a redirect to /login; any other is the HTML page', async () => {
    const res = await t.app.request('/v1/nu-exista');
    expect(res.status).toBe(401);
    const key = await t.createKey(await t.createAccount());
    const apiMissing = await t.call('GET', '/v1/nu-exista', { key });
    expect(apiMissing.status).toBe(404);
    expect(apiMissing.headers.get('content-type')).toMatch(/json/);
    // Issue 18: a dashboard path that does not exist is a page, with the dashboard's CSP.
    const missing = await t.app.request('/nu-exista');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/text\/html/);
    expect(missing.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await missing.text()).toContain('Pagina nu există');
  });
});

describe('over HTTPS', () => {
  it('cookies are __Host- prefixed, Secure, path /', async () => {
    const form = await t.app.request('https://gateway.example/login', { headers: { Host: 'gateway.example' } });
    const loginCookie = form.headers.getSetCookie()[0]!;
    expect(loginCookie).toMatch(/^__Host-gw_autentificare=/);
    expect(loginCookie).toMatch(/; Path=\/;/);
    expect(loginCookie).toMatch(/Secure/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const login = await t.app.request('https://gateway.example/login', {
      method: 'POST',
      headers: { Host: 'gateway.example', Origin: 'https://gateway.example', Cookie: loginCookie.split(';')[0]!, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: user.email, parola: PASSWORD }).toString(),
    });
    expect(login.status).toBe(303);
    const session = login.headers.getSetCookie().find((c) => c.startsWith('__Host-gw_sesiune='))!;
    expect(session).toMatch(/; Path=\/;/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
  });
});

describe('every screen and form', () => {
  const pages = ['/', '/mapari', '/jurnal', '/cont', '/integrare', '/_fragments/coada', '/_fragments/mapari', '/_fragments/trimitere/1'];
  // The sessionless forms have their own token, tested with each (web-login, people-signup, people-links).
  const forms = WEB_FORM_PATHS.filter((path) => !PUBLIC_FORM_PATHS.includes(path));

  it('signed out: pages redirect to /login, htmx is told to, and no form changes anything', async () => {
    const stranger = browser(t);
    for (const path of pages) {
      const page = await stranger.get(path);
      expect(page.status, path).toBe(303);
      expect(page.headers.get('location'), path).toBe('/login');
      expect((await stranger.get(path, { 'HX-Request': 'true' })).headers.get('hx-redirect'), path).toBe('/login');
    }
    for (const path of forms) expect((await stranger.post(path, { cod_op_service: 'X', cod_prestatie: 'OE-3' })).status, path).toBe(303);
  });

  it('signed in: every form refuses a request without the CSRF token, or from another site, with 403', async () => {
    const b = browser(t);
    await b.login(user.email);
    await b.get('/');
    for (const path of forms) {
      expect((await b.post(path, { _csrf: '' })).status, path).toBe(403);
      expect((await b.htmx('POST', path, { 'X-CSRF-Token': 'nu-e-al-sesiunii' })).status, path).toBe(403);
      expect((await b.htmx('POST', path, { Origin: 'https://alt-site.example' })).status, path).toBe(403);
    }
    // And the session still works afterwards.
    expect((await b.get('/')).status).toBe(200);
  });
});
