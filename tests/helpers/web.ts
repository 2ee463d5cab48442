import type { Role } from '../../src/services/roles';
import { createUser } from '../../src/services/users/users';
import type { TestApp } from './app';

/** scrypt at its minimum, so that a sign-in in a test costs milliseconds (production: 2^17). */
export const FAST_SCRYPT = { GATEWAY_SCRYPT_N: '1024' };
export const PASSWORD = 'parola-de-test-lunga';
const ORIGIN = 'http://localhost';

/** The forms shown before a session exists, each with its own signed form token (web/login/public-form.ts). */
export const PUBLIC_FORM_PATHS = ['/login', '/inregistrare', '/parola-uitata', '/parola-noua', '/invitatie'];

/** Every form the dashboard answers (tests/integration/web-routes.test.ts holds it to the app's routes); the ids are placeholders. */
export const WEB_FORM_PATHS = [
  ...PUBLIC_FORM_PATHS,
  '/logout',
  '/mapari',
  '/mapari/sugestii',
  '/mapari/X1/sterge',
  '/mapari/X1/modifica',
  '/mapari/reguli',
  '/mapari/reguli/test',
  '/mapari/reguli/1/modifica',
  '/mapari/reguli/1/sterge',
  '/trimitere/1/sterge',
  '/trimitere/1/repune',
  '/trimitere/1/mapeaza',
  '/trimitere/1/corecteaza',
  '/trimiteri/actiuni',
  '/trimiteri/actiuni/executa',
  '/cont/creds',
  '/cont/creds/sterge',
  '/cont/coduri-nemapate',
  '/cont/oameni/invita',
  '/cont/oameni/invitatii/1/anuleaza',
  '/cont/oameni/1/rol',
  '/cont/oameni/1/dezactiveaza',
  '/cont/oameni/1/activeaza',
  '/cont/oameni/1/resetare',
  '/cont/sesiuni/1/inchide',
  '/cont/sesiuni/inchide-celelalte',
  '/_import/incarca',
  '/_import/1/coloane',
  '/_import/1/mapare-operatie',
  '/_import/1/rand/1/editeaza',
  '/_import/1/rand/1/revizuire',
  '/_import/1/rand/1/deoparte',
  '/_import/1/confirma',
  '/integrare/test-cheie',
];

/** The browser's upload: the one form whose body is read only after the session (web/import/routes.ts). */
export const UPLOAD_FORM_PATH = '/_import/incarca';

export async function makeUser(t: TestApp, accountId: number, options: { email?: string; admin?: boolean; role?: Role } = {}) {
  const email = options.email ?? `user${accountId}-${Math.random().toString(36).slice(2, 8)}@service.ro`;
  const id = await createUser(t.ctx.db, { accountId, email, password: PASSWORD, admin: options.admin ?? false, role: options.role, scryptN: 1024 });
  return { id, email };
}

/**
 * A browser over app.request: keeps cookies, sends Origin like a same-site page, and knows
 * the CSRF token of the last page it loaded.
 */
export function browser(t: TestApp) {
  const cookies = new Map<string, string>();
  let csrf: string | undefined;

  async function request(method: string, path: string, options: { form?: Record<string, string> | Array<[string, string]>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { Host: 'localhost', ...options.headers };
    if (cookies.size > 0) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (options.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      headers.Origin ??= ORIGIN;
      body = new URLSearchParams(options.form).toString();
    }
    const res = await t.app.request(`${ORIGIN}${path}`, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name!);
      else cookies.set(name!, value ?? '');
    }
    if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
      const text = await res.clone().text();
      csrf = /name="(?:csrf-token|_csrf)" (?:content|value)="([^"]+)"/.exec(text)?.[1] ?? /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    }
    return res;
  }

  return {
    cookies,
    csrf: () => csrf,
    get: (path: string, headers: Record<string, string> = {}) => request('GET', path, { headers }),
    /** A form post with the CSRF token of the last page (unless the form gives its own _csrf). */
    post: (path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) => request('POST', path, { form: { _csrf: csrf ?? '', ...form }, headers }),
    /** A form post whose fields repeat (a list of rows), in order, with the CSRF token. */
    postList: (path: string, fields: Array<[string, string]>) => request('POST', path, { form: [['_csrf', csrf ?? ''], ...fields] }),
    /** An htmx action: token in X-CSRF-Token, no form body. */
    htmx: (method: string, path: string, headers: Record<string, string> = {}) =>
      request(method, path, { headers: { 'HX-Request': 'true', 'X-CSRF-Token': csrf ?? '', Origin: ORIGIN, ...headers } }),
    async login(email: string, password = PASSWORD) {
      await request('GET', '/login');
      return request('POST', '/login', { form: { _csrf: csrf ?? '', email, parola: password } });
    },
  };
}
