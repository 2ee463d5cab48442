import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import type { ErrorCode } from '../../errors';
import { clientAddress, maskAddress } from '../../http/auth';
import { createWindowCounter } from '../../http/rate-limit';
import { checkCredentials, closeSession, findSession, openSession } from '../../services/users/sessions';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { fromOwnSite, sameToken } from '../security';
import { clearSessionCookie, clearWebCookie, readWebCookie, sessionToken, setSessionCookie, setWebCookie, signedIn } from '../session';
import { LoginPage } from './page';

export const LoginForm = z.object({
  email: z.string().max(254),
  parola: z.string().max(256),
  _csrf: z.string().max(100).optional(),
});

const LOGIN_COOKIE = 'gw_autentificare';
const MINUTE_MS = 60_000;
const EMAIL_WINDOW_MS = 15 * MINUTE_MS;

/**
 * Sign-in and sign-out. Before a session exists, the form's CSRF token is a double-submit
 * cookie. Failures are limited per client address (GATEWAY_AUTH_FAILURES_PER_MIN a minute)
 * and per e-mail (GATEWAY_LOGIN_FAILURES_PER_EMAIL in 15 minutes); each attempt costs a
 * scrypt hash, so guessing is slow as well as limited.
 */
export function loginRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  const perAddress = createWindowCounter({ windowMs: MINUTE_MS });
  const perEmail = createWindowCounter({ windowMs: EMAIL_WINDOW_MS });

  const page = (c: Context, status: 200 | 401 | 403 | 422 | 429 = 200, props: { email?: string; error?: { cod: ErrorCode; cauza?: string } } = {}) => {
    const csrfToken = randomBytes(24).toString('base64url');
    setWebCookie(c, ctx, LOGIN_COOKIE, csrfToken, 'Strict');
    return c.html(<LoginPage csrfToken={csrfToken} {...props} />, status);
  };

  app.get('/login', async (c) => {
    const token = sessionToken(c, ctx);
    if (token && (await findSession(ctx, token))) return c.redirect('/', 303);
    return page(c);
  });

  app.post('/login', async (c) => {
    const parsed = LoginForm.safeParse(await readForm(c));
    if (!parsed.success) return page(c, 422, { error: { cod: 'CERERE_INVALIDA', cauza: 'Completați e-mailul și parola.' } });
    const { email, parola, _csrf } = parsed.data;
    if (!fromOwnSite(c) || !sameToken(_csrf, readWebCookie(c, ctx, LOGIN_COOKIE) ?? '')) {
      return page(c, 403, { email, error: { cod: 'NEAUTORIZAT_CSRF' } });
    }
    const address = clientAddress(c, ctx.config.GATEWAY_TRUST_PROXY);
    const emailKey = sha256Hex(email.trim().toLowerCase());
    const addressHits = perAddress.hit(address);
    const emailHits = perEmail.hit(emailKey);
    if (addressHits.count > ctx.config.GATEWAY_AUTH_FAILURES_PER_MIN || emailHits.count > ctx.config.GATEWAY_LOGIN_FAILURES_PER_EMAIL) {
      const minutes = Math.ceil(Math.max(addressHits.retryAfterS, emailHits.count > ctx.config.GATEWAY_LOGIN_FAILURES_PER_EMAIL ? emailHits.retryAfterS : 0) / 60);
      c.header('Retry-After', String(minutes * 60));
      return page(c, 429, { email, error: { cod: 'PREA_MULTE_CERERI', cauza: `Prea multe încercări de autentificare; reîncercați peste ${minutes} minute.` } });
    }
    const user = parola === '' ? null : await checkCredentials(ctx, email, parola);
    if (!user) {
      ctx.journal.write({ event: 'web_autentificare_esuata', level: 'warn', requestId: c.get('requestId'), data: { adresa: maskAddress(address) } });
      return page(c, 401, { email, error: { cod: 'AUTENTIFICARE_ESUATA' } });
    }
    // A success does not count against the limits.
    perAddress.release(address);
    perEmail.release(emailKey);
    const session = await openSession(ctx, user, sessionToken(c, ctx));
    clearWebCookie(c, ctx, LOGIN_COOKIE);
    setSessionCookie(c, ctx, session.token);
    ctx.journal.write({ event: 'web_autentificare', requestId: c.get('requestId'), accountId: user.accountId, data: { user_id: user.userId } });
    return c.redirect('/', 303);
  });

  app.post('/logout', signedIn(ctx), async (c) => {
    const token = sessionToken(c, ctx);
    if (token) await closeSession(ctx, token);
    clearSessionCookie(c, ctx);
    ctx.journal.write({ event: 'web_iesire', requestId: c.get('requestId'), accountId: c.get('session').user.accountId, data: { user_id: c.get('session').user.userId } });
    return c.redirect('/login', 303);
  });
  return app;
}
