import type { Context } from 'hono';
import type { AppContext } from '../context';
import type { JournalEventName } from '../journal/events';
import { maskAddress } from './auth';
import { clientAddress } from './client-address';
import { windowCounter } from './rate-limit';

const MINUTE_MS = 60_000;

/** Why a body was refused: the client left before sending it all, or what it sent is no body of its declared type. */
export type BodyFault = 'aborted' | 'unreadable';

export type BodyRefusal = { cod: 'CORP_ILIZIBIL'; cauza: string } | { cod: 'PREA_MULTE_CERERI'; cauza: string; retryAfterS: number };

const CAUZA: Record<BodyFault, string> = {
  aborted: 'Conexiunea s-a închis înainte ca tot corpul cererii să fie primit.',
  unreadable: 'Corpul nu este un formular valid (multipart/form-data sau application/x-www-form-urlencoded).',
};

/**
 * The one rule for bodies that cannot be read, on the API and the dashboard alike: a 400 in the
 * catalog's words, counted per client address like failed authentications (past
 * GATEWAY_AUTH_FAILURES_PER_MIN a minute: 429). They can come before any session or key, so
 * the journal gets the first of a window (a warning; an abort only as info), the lock-out and
 * a summary of the window, never a row each, and never an error.
 */
export function createBodyRefusals(ctx: AppContext) {
  const perAddress = windowCounter({ windowMs: MINUTE_MS, scope: 'corp_ilizibil', sync: ctx.windows });
  const max = ctx.config.GATEWAY_AUTH_FAILURES_PER_MIN;

  return function refuseBody(c: Context, fault: BodyFault): BodyRefusal {
    const address = clientAddress(c, ctx.config);
    const hit = perAddress.hit(address);
    const journal = (event: JournalEventName, level: 'info' | 'warn', data: Record<string, unknown>) =>
      ctx.journal.write({ event, level, requestId: c.get('requestId') as string, data: { adresa: maskAddress(address), ...data } });
    if (hit.previous > max) journal('corp_ilizibil_rezumat', 'warn', { refuzuri: hit.previous, fereastra_s: MINUTE_MS / 1000 });
    if (hit.count === 1) {
      const event = fault === 'aborted' ? 'cerere_intrerupta' : 'corp_ilizibil';
      journal(event, fault === 'aborted' ? 'info' : 'warn', { method: c.req.method, path: c.req.path });
    }
    if (hit.count === max + 1) journal('corp_ilizibil_limitat', 'warn', { refuzuri: hit.count, fereastra_s: MINUTE_MS / 1000 });
    if (hit.count > max) {
      return {
        cod: 'PREA_MULTE_CERERI',
        cauza: 'Prea multe cereri cu corp ilizibil de la această adresă; reîncercați după intervalul din Retry-After.',
        retryAfterS: hit.retryAfterS,
      };
    }
    return { cod: 'CORP_ILIZIBIL', cauza: CAUZA[fault] };
  };
}

export type RefuseBody = ReturnType<typeof createBodyRefusals>;
