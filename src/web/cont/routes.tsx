import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { RegCredentials } from '../../domain/submission-input';
import { accountOverview } from '../../services/accounts/overview';
import { clearRegCredentials, saveRegCredentials } from '../../services/accounts/reg-creds';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { ContPage, type ContNotice } from './page';

/** After a form's post the browser is sent back to the page (so a reload does not post again), with what happened. */
const MESSAGES = {
  creds_salvate: 'Credențialele registrului au fost salvate (criptate). Trimiterile care le așteptau pornesc acum.',
  creds_sterse: 'Credențialele registrului au fost șterse.',
} as const;

function backToPage(c: Context<WebEnv>, message: keyof typeof MESSAGES) {
  const url = `/cont?mesaj=${message}`;
  return c.req.header('hx-request') ? c.body(null, 200, { 'HX-Redirect': url }) : c.redirect(url, 303);
}

async function page(c: Context<WebEnv>, ctx: AppContext, notice?: ContNotice, status: 200 | 422 = 200) {
  const { user, csrfToken } = c.get('session');
  const overview = await accountOverview({ ctx, accountId: user.accountId });
  return c.html(<ContPage user={user} csrfToken={csrfToken} overview={overview} notice={notice} />, status);
}

/** Cont: the account's keys, registry credentials (set or removed, never shown), defaults and registry session. */
export function contRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  app.get('/cont', (c) => {
    const message = c.req.query('mesaj');
    const text = message && message in MESSAGES ? MESSAGES[message as keyof typeof MESSAGES] : undefined;
    return page(c, ctx, text ? { kind: 'ok', text } : undefined);
  });
  app.post('/cont/creds', async (c) => {
    const form = RegCredentials.safeParse(await readForm(c));
    if (!form.success) return page(c, ctx, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Completați utilizatorul și parola registrului.' }, 422);
    await saveRegCredentials({ ctx, accountId: c.get('actor').accountId, creds: form.data, requestId: c.get('requestId') });
    return backToPage(c, 'creds_salvate');
  });
  app.post('/cont/creds/sterge', async (c) => {
    await clearRegCredentials({ ctx, accountId: c.get('actor').accountId, requestId: c.get('requestId') });
    return backToPage(c, 'creds_sterse');
  });
  return app;
}
