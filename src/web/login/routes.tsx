import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { HashQueueFull } from '../../crypto/hash-gate';
import type { RequestErrorCode } from '../../errors';
import { statusOf } from '../../http/status';
import { maskAddress } from '../../http/auth';
import { clientAddress } from '../../http/client-address';
import { checkCredentials, closeSession, findSession, normalEmail, openSession, type SessionUser } from '../../services/users/sessions';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { clearSessionCookie, readWebCookie, sessionToken, setSessionCookie, setWebCookie, signedIn } from '../session';
import { createDeviceCookies, DEVICE_COOKIE, DEVICE_COOKIE_MAX_LENGTH, DEVICE_MAX_AGE_S } from './device';
import { createSignInLimits } from './limits';
import { createPublicForms, deviceOf } from './public-form';
import { signupOpen } from '../../config';

import { LoginPage } from './page';
import { countOf } from '../ui/format';

export const LoginForm = z.object({
  email: z.string().max(254),
  parola: z.string().max(256),
  _csrf: z.string().max(100).optional(),
});

/**
 * Sign-in and sign-out. Before a session exists, the form's CSRF token is a signed
 * double-submit cookie (form-token.ts). Who is limited how is limits.ts's rule; a browser that
 * signed in before carries a device cookie (device.ts) that keeps its owner out of a lock-out
 * strangers caused. Each attempt costs a scrypt hash in a bounded queue (crypto/hash-gate.ts):
 * past it, 429 at once.
 */
export function loginRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  const limits = createSignInLimits(ctx.config, ctx.windows);
  const forms = createPublicForms(ctx);
  const signup = signupOpen(ctx.config);
  const devices = createDeviceCookies(ctx.keyring.deriveKey('device-cookie'));

  /** The sign-in page; with a refusal, at its code's status (http/status.ts). */
  const page = (c: Context, props: { email?: string; error?: { cod: RequestErrorCode; cauza?: string } } = {}) => {
    return c.html(<LoginPage csrfToken={forms.issue(c)} signup={signup} {...props} />, props.error ? statusOf(props.error.cod) : 200);
  };
  const tooMany = (c: Context, email: string, retryAfterS: number, cauza: string) => {
    c.header('Retry-After', String(retryAfterS));
    return page(c, { email, error: { cod: 'PREA_MULTE_CERERI', cauza } });
  };

  app.get('/login', async (c) => {
    const token = sessionToken(c, ctx);
    if (token && (await findSession(ctx, token))) return c.redirect('/', 303);
    return page(c);
  });

  app.post('/login', async (c) => {
    const parsed = LoginForm.safeParse(await readForm(c));
    if (!parsed.success) return page(c, { error: { cod: 'FORMULAR_INVALID', cauza: 'Completați e-mailul și parola.' } });
    const { email, parola, _csrf } = parsed.data;
    if (!forms.valid(c, _csrf)) {
      return page(c, { email, error: { cod: 'NEAUTORIZAT_CSRF' } });
    }
    const address = clientAddress(c, ctx.config);
    const normal = normalEmail(email);
    const deviceCookie = readWebCookie(c, ctx, DEVICE_COOKIE, DEVICE_COOKIE_MAX_LENGTH);
    const device = devices.deviceFor(deviceCookie, normal);
    const admission = limits.admit({ address, email: normal, device });
    if (!admission.admitted) {
      // Whole minutes: the limits' windows are one and fifteen minutes long.
      const minutes = Math.ceil(admission.retryAfterS / 60);
      return tooMany(c, email, minutes * 60, `Prea multe încercări de autentificare; reîncercați peste ${countOf(minutes, 'un minut', 'minute')}.`);
    }
    let user: SessionUser | null;
    try {
      user = parola === '' ? null : await checkCredentials(ctx, email, parola, admission.lane);
    } catch (error) {
      if (!(error instanceof HashQueueFull)) throw error;
      // No password was tried: the attempt does not count against any limit.
      admission.release();
      return tooMany(c, email, error.retryAfterS, `Serverul verifică acum prea multe autentificări; reîncercați peste ${countOf(error.retryAfterS, 'o secundă', 'secunde')}.`);
    }
    if (!user) {
      ctx.journal.write({
        event: 'web_autentificare_esuata',
        level: 'warn',
        requestId: c.get('requestId'),
        data: { adresa: maskAddress(address), dispozitiv_cunoscut: admission.lane === 'trusted' },
      });
      return page(c, { email, error: { cod: 'AUTENTIFICARE_ESUATA' } });
    }
    // A success does not count against the limits.
    admission.release();
    const session = await openSession(ctx, user, sessionToken(c, ctx), deviceOf(c, ctx));
    forms.done(c);
    setSessionCookie(c, ctx, session.token);
    setWebCookie(c, ctx, DEVICE_COOKIE, devices.afterSignIn(deviceCookie, normal), 'Strict', DEVICE_MAX_AGE_S);
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
