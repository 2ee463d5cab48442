import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { signupOpen } from '../../config';
import type { AppContext } from '../../context';
import { clientAddress } from '../../http/client-address';
import { windowCounter } from '../../http/rate-limit';
import { statusOf } from '../../http/status';
import { signUp } from '../../services/users/signup';
import { openSession } from '../../services/users/sessions';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { asFormRefusal } from '../links/refusal';
import { createPublicForms, deviceOf } from '../login/public-form';
import { sessionToken, setSessionCookie } from '../session';
import { countOf } from '../ui/format';
import { SignUpClosedPage, SignUpPage, type SignUpRefusal, type SignUpValues } from './page';

const SignUpForm = z.object({
  nume: z.string().max(200),
  cui: z.string().max(20),
  email: z.string().max(254),
  parola: z.string().max(256),
  _csrf: z.string().max(100).optional(),
});

const HOUR_MS = 3_600_000;

/**
 * Sign-up (GATEWAY_SIGNUP): a new workshop's account and its administrator, signed in at once
 * and sent to the import screen. Each attempt with a valid form token counts against its client
 * address (GATEWAY_SIGNUP_PER_HOUR), before any password is hashed or any CUI or address looked
 * up, so guessing which are known is as slow as the limit.
 */
export function signupRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  const forms = createPublicForms(ctx);
  const perAddress = windowCounter({ windowMs: HOUR_MS, scope: 'inregistrare_adresa', sync: ctx.windows });

  const page = (c: Context, values?: SignUpValues, error?: SignUpRefusal) =>
    c.html(<SignUpPage csrfToken={forms.issue(c)} values={values} error={error} />, error ? statusOf(error.cod) : 200);
  const closed = (c: Context) => c.html(<SignUpClosedPage />, statusOf('INREGISTRARE_INCHISA'));

  app.get('/inregistrare', (c) => (signupOpen(ctx.config) ? page(c) : closed(c)));

  app.post('/inregistrare', async (c) => {
    if (!signupOpen(ctx.config)) return closed(c);
    const parsed = SignUpForm.safeParse(await readForm(c));
    if (!parsed.success) return page(c, {}, { cod: 'FORMULAR_INVALID', cauza: 'Completați toate câmpurile formularului.' });
    const { nume, cui, email, parola, _csrf } = parsed.data;
    const values = { nume, cui, email };
    if (!forms.valid(c, _csrf)) return page(c, values, { cod: 'NEAUTORIZAT_CSRF' });
    const hit = perAddress.hit(clientAddress(c, ctx.config));
    if (hit.count > ctx.config.GATEWAY_SIGNUP_PER_HOUR) {
      const minutes = Math.ceil(hit.retryAfterS / 60);
      c.header('Retry-After', String(minutes * 60));
      return page(c, values, { cod: 'PREA_MULTE_CERERI', cauza: `Prea multe înregistrări de la această adresă; reîncercați peste ${countOf(minutes, 'un minut', 'minute')}.` });
    }
    let user: Awaited<ReturnType<typeof signUp>>;
    try {
      user = await signUp({ ctx, input: { name: nume, cui, email, password: parola }, requestId: c.get('requestId') });
    } catch (error) {
      return page(c, values, asFormRefusal(error));
    }
    const session = await openSession(ctx, user, sessionToken(c, ctx), deviceOf(c, ctx));
    forms.done(c);
    setSessionCookie(c, ctx, session.token);
    return c.redirect('/', 303);
  });
  return app;
}
