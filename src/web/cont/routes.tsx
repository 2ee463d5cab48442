import { statusOf } from '../../http/status';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { RegCredentials } from '../../domain/submission-input';
import { accountAlerts } from '../../services/accounts/alerts';
import { accountOverview } from '../../services/accounts/overview';
import { clearRegCredentials, saveRegCredentials, setUnmappedDefault } from '../../services/accounts/reg-creds';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { countOf } from '../ui/format';
import { ContPage, type ContNotice } from './page';

/** After a form's post the browser is sent back to the page (so a reload does not post again), with what happened. */
const MESSAGES = {
  creds_salvate: 'Credențialele registrului au fost salvate (criptate). Trimiterile care le așteptau pornesc acum.',
  creds_sterse: 'Credențialele registrului au fost șterse.',
  nemapate_pastrate: 'Salvat: o trimitere cu un cod nemapat se păstrează ca „Cod de mapat”.',
  nemapate_respinse: 'Salvat: o trimitere cu un cod nemapat este respinsă, dacă programul nu cere altfel.',
} as const;

/** The credentials form's own fields: the requeue box is on when it is sent at all (a checkbox). */
const CredentialsForm = RegCredentials.extend({ repune_refuzate: z.literal('1').optional() });
const UnmappedForm = z.object({ respinge: z.enum(['0', '1']) });

/** How many errors the save requeued travels in the address as a bounded number, never as text. */
const MAX_SHOWN = 1_000_000_000;

function backToPage(c: Context<WebEnv>, message: keyof typeof MESSAGES, requeued?: number) {
  const url = `/cont?mesaj=${message}${requeued ? `&repuse=${requeued}` : ''}`;
  return c.req.header('hx-request') ? c.body(null, 200, { 'HX-Redirect': url }) : c.redirect(url, 303);
}

/** The page; with a refusal, at its code's status (http/status.ts). */
async function page(c: Context<WebEnv>, ctx: AppContext, notice?: ContNotice) {
  const status = notice?.kind === 'error' ? statusOf(notice.cod) : 200;
  const { user, csrfToken } = c.get('session');
  const [overview, alerts] = await Promise.all([accountOverview({ ctx, actor: c.get('actor') }), c.get('alerts') ?? accountAlerts({ ctx, actor: c.get('actor') })]);
  return c.html(<ContPage user={user} actor={c.get('actor')} csrfToken={csrfToken} overview={overview} alerts={alerts} notice={notice} />, status);
}

function confirmation(message: string | undefined, requeuedParam: string | undefined): ContNotice | undefined {
  if (!message || !(message in MESSAGES)) return undefined;
  let text: string = MESSAGES[message as keyof typeof MESSAGES];
  const requeued = /^\d{1,10}$/.test(requeuedParam ?? '') ? Math.min(Number(requeuedParam), MAX_SHOWN) : 0;
  if (message === 'creds_salvate' && requeued > 0) {
    text += ` ${requeued === 1 ? 'O trimitere refuzată la autentificare a fost repusă' : `${countOf(requeued, 'o trimitere refuzată', 'trimiteri refuzate')} la autentificare au fost repuse`} în coadă.`;
  }
  return { kind: 'ok', text };
}

/** Cont: the account's keys, registry credentials (set or removed, never shown), defaults and registry session. */
export function contRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  app.get('/cont', (c) => page(c, ctx, confirmation(c.req.query('mesaj'), c.req.query('repuse'))));
  app.post('/cont/creds', async (c) => {
    const form = CredentialsForm.safeParse(await readForm(c));
    if (!form.success) return page(c, ctx, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Completați utilizatorul și parola registrului.' });
    const { repune_refuzate, ...creds } = form.data;
    const { requeued } = await saveRegCredentials({ ctx, actor: c.get('actor'), creds, requestId: c.get('requestId'), requeueLoginRefused: repune_refuzate === '1' });
    return backToPage(c, 'creds_salvate', requeued);
  });
  app.post('/cont/creds/sterge', async (c) => {
    await clearRegCredentials({ ctx, actor: c.get('actor'), requestId: c.get('requestId') });
    return backToPage(c, 'creds_sterse');
  });
  app.post('/cont/coduri-nemapate', async (c) => {
    const form = UnmappedForm.safeParse(await readForm(c));
    if (!form.success) return page(c, ctx, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Alegeți ce se întâmplă cu o trimitere cu un cod nemapat.' });
    const reject = form.data.respinge === '1';
    await setUnmappedDefault({ ctx, actor: c.get('actor'), reject, requestId: c.get('requestId') });
    return backToPage(c, reject ? 'nemapate_respinse' : 'nemapate_pastrate');
  });
  return app;
}
