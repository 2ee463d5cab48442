import { statusOf } from '../../http/status';
import { type Context, Hono } from 'hono';
import { publicBaseUrl } from '../../config';
import type { AppContext } from '../../context';
import { clientAddress } from '../../http/client-address';
import { checkKey, MAX_KEY_LENGTH } from '../../services/accounts/key-check';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { createKeyTestLimits } from './key-limits';
import { KeyResult, type KeyVerdict } from './key-tester';
import { IntegrarePage } from './page';

/** Integrare: the examples page, and the key tester (htmx swaps its answer in; without htmx, the page again). */
export function integrareRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();
  const limits = createKeyTestLimits(ctx.windows);
  const base = publicBaseUrl(ctx.config);

  /** The tester's answer; a refusal at its code's status (http/status.ts). */
  function answer(c: Context<WebEnv>, verdict: KeyVerdict | undefined) {
    const status = verdict?.kind === 'refused' ? statusOf(verdict.cod) : 200;
    if (c.req.header('hx-request')) return c.html(<KeyResult verdict={verdict} />, status);
    const { user, csrfToken } = c.get('session');
    return c.html(<IntegrarePage user={user} csrfToken={csrfToken} alerts={c.get('alerts')} base={base} verdict={verdict} />, status);
  }

  app.get('/integrare', (c) => answer(c, undefined));

  app.post('/integrare/test-cheie', async (c) => {
    const { user } = c.get('session');
    const admission = limits.admit(user.userId, clientAddress(c, ctx.config));
    if (!admission.admitted) {
      c.header('Retry-After', String(admission.retryAfterS));
      const cauza = `Ați verificat prea multe chei într-un minut; reîncercați peste ${admission.retryAfterS} s.`;
      return answer(c, { kind: 'refused', cod: 'PREA_MULTE_CERERI', cauza });
    }
    const field = (await readForm(c)).cheie;
    const key = typeof field === 'string' ? field.trim() : '';
    // The key is never part of an answer: a refusal says what is wrong, not what was sent.
    if (key === '') return answer(c, { kind: 'refused', cod: 'FORMULAR_INVALID', cauza: 'Introduceți cheia API de verificat.' });
    if (key.length > MAX_KEY_LENGTH) {
      return answer(c, { kind: 'refused', cod: 'FORMULAR_INVALID', cauza: `O cheie API are cel mult ${MAX_KEY_LENGTH} de caractere; textul trimis nu este o cheie.` });
    }
    const check = await checkKey({ ctx, actor: c.get('actor'), key });
    ctx.journal.write({
      event: 'web_test_cheie',
      requestId: c.get('requestId'),
      accountId: user.accountId,
      data: { rezultat: check.kind === 'invalid' ? 'invalida' : check.kind === 'own' ? 'contul_propriu' : 'alt_cont', user_id: user.userId },
    });
    return answer(c, check);
  });
  return app;
}
