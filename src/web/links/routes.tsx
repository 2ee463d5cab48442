import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import { AppError } from '../../errors';
import { clientAddress } from '../../http/client-address';
import { windowCounter } from '../../http/rate-limit';
import { statusOf } from '../../http/status';
import { resetMail } from '../../services/mail/messages';
import type { Mailer } from '../../services/mail/mailer';
import { acceptInvitation, completeReset, type LinkKind, readLink, requestReset, RESET_MINUTES } from '../../services/users/links';
import { normalEmail, openSession } from '../../services/users/sessions';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { createPublicForms, deviceOf } from '../login/public-form';
import { sessionToken, setSessionCookie } from '../session';
import { countOf } from '../ui/format';
import { ChoosePasswordPage, ForgotPage, LinkRefusedPage } from './pages';
import { asFormRefusal, type FormRefusal } from './refusal';
import { linkAddress, LINK_PATH, sendMail } from './send';

const Token = z.string().regex(/^[\w-]{20,100}$/);
const ForgotForm = z.object({ email: z.string().max(254), _csrf: z.string().max(100).optional() });
const PasswordForm = z.object({ t: z.string().max(100), parola: z.string().max(256), parola2: z.string().max(256), _csrf: z.string().max(100).optional() });

const HOUR_MS = 3_600_000;

/**
 * The pages reached without a session: "Am uitat parola" and the two kinds of single-use link.
 * Opening a link shows its form and spends nothing; choosing the password spends it, signs the
 * person in (a fresh session; a reset has ended every other) and opens the import screen.
 */
export function linkRoutes(ctx: AppContext, mailer: Mailer | null) {
  const app = new Hono<WebEnv>();
  const forms = createPublicForms(ctx);
  const perAddress = windowCounter({ windowMs: HOUR_MS, scope: 'resetare_adresa', sync: ctx.windows });
  const perEmail = windowCounter({ windowMs: HOUR_MS, scope: 'resetare_email', sync: ctx.windows });

  const forgot = (c: Context, props: { sent?: boolean; email?: string; error?: FormRefusal } = {}) =>
    c.html(<ForgotPage csrfToken={forms.issue(c)} byMail={mailer !== null} {...props} />, props.error ? statusOf(props.error.cod) : 200);

  app.get('/parola-uitata', (c) => forgot(c));

  app.post('/parola-uitata', async (c) => {
    if (!mailer) return forgot(c);
    const parsed = ForgotForm.safeParse(await readForm(c));
    if (!parsed.success) return forgot(c, { error: { cod: 'FORMULAR_INVALID', cauza: 'Scrieți adresa de e-mail.' } });
    const { email, _csrf } = parsed.data;
    if (!forms.valid(c, _csrf)) return forgot(c, { email, error: { cod: 'NEAUTORIZAT_CSRF' } });
    const byAddress = perAddress.hit(clientAddress(c, ctx.config));
    const byEmail = perEmail.hit(sha256Hex(normalEmail(email)));
    const limit = ctx.config.GATEWAY_RESET_PER_HOUR;
    if (byAddress.count > limit || byEmail.count > limit) {
      const minutes = Math.ceil(Math.max(byAddress.retryAfterS, byEmail.retryAfterS) / 60);
      c.header('Retry-After', String(minutes * 60));
      return forgot(c, { email, error: { cod: 'PREA_MULTE_CERERI', cauza: `Prea multe cereri de resetare; reîncercați peste ${countOf(minutes, 'un minut', 'minute')}.` } });
    }
    const requestId = c.get('requestId');
    const link = await requestReset({ ctx, email, requestId });
    // Not awaited: the answer takes as long for an unknown address as for a known one.
    if (link) {
      const mail = resetMail({ to: link.email, link: linkAddress(c, ctx, 'resetare', link.token), minutes: RESET_MINUTES });
      void sendMail(ctx, mailer, mail, { tip: 'resetare', id: link.id, requestId });
    }
    return forgot(c, { sent: true, email });
  });

  for (const kind of ['invitatie', 'resetare'] as const satisfies LinkKind[]) {
    const path = LINK_PATH[kind];
    const refusedLink = (c: Context, error: FormRefusal) => c.html(<LinkRefusedPage cod={error.cod} cauza={error.cauza} />, statusOf(error.cod));
    const choose = async (c: Context, token: string, error?: FormRefusal) => {
      const link = await readLink(ctx, token, kind);
      return c.html(<ChoosePasswordPage csrfToken={forms.issue(c)} token={token} link={link} error={error} />, error ? statusOf(error.cod) : 200);
    };
    const invalid = () => new AppError('LINK_INVALID', 'Adresa linkului este incompletă: copiați-o întreagă din e-mail sau de la administrator.');

    app.get(path, async (c) => {
      try {
        const token = Token.safeParse(c.req.query('t'));
        if (!token.success) throw invalid();
        return await choose(c, token.data);
      } catch (error) {
        return refusedLink(c, asFormRefusal(error));
      }
    });

    app.post(path, async (c) => {
      const parsed = PasswordForm.safeParse(await readForm(c));
      const token = Token.safeParse(parsed.data?.t);
      if (!parsed.success || !token.success) return refusedLink(c, asFormRefusal(invalid()));
      const { parola, parola2, _csrf } = parsed.data;
      try {
        if (!forms.valid(c, _csrf)) return await choose(c, token.data, { cod: 'NEAUTORIZAT_CSRF' });
        if (parola !== parola2)
          return await choose(c, token.data, { cod: 'FORMULAR_INVALID', cauza: 'Cele două parole diferă: scrieți aceeași parolă de două ori.', field: 'parola2' });
        const input = { ctx, token: token.data, password: parola, requestId: c.get('requestId') };
        const user = kind === 'invitatie' ? await acceptInvitation(input) : await completeReset(input);
        const session = await openSession(ctx, user, sessionToken(c, ctx), deviceOf(c, ctx));
        forms.done(c);
        setSessionCookie(c, ctx, session.token);
        return c.redirect('/', 303);
      } catch (error) {
        const refusal = asFormRefusal(error);
        if (refusal.field) return choose(c, token.data, refusal).catch((again) => refusedLink(c, asFormRefusal(again)));
        return refusedLink(c, refusal);
      }
    });
  }
  return app;
}
