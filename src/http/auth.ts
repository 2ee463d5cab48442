import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext, Actor } from '../context';
import type { JournalEventName } from '../journal/events';
import { DEFAULT_ACCOUNT_ID } from '../domain/accounts';
import { activeKey, keyHashOf } from '../services/accounts/key-check';
import { clientAddress } from './client-address';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';
import { createWindowCounter, windowCounter } from './rate-limit';

const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

/** The API key of a request: `X-API-Key`, or `Authorization: Bearer <key>`. */
export function presentedKey(header: (name: string) => string | undefined): string | undefined {
  const direct = header('x-api-key')?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header('authorization') ?? '');
  return match?.[1];
}

/** 203.0.113.7 → 203.0.113.x: enough to see a pattern in the journal, not to name a person. */
export function maskAddress(address: string): string {
  if (address.includes(':')) return `${address.split(':').slice(0, 3).join(':')}:…`;
  return address.replace(/\.\d+$/, '.x');
}

function tooMany(c: Context, retryAfterS: number, cauza: string) {
  c.header('Retry-After', String(retryAfterS));
  return errorResponse(c, 'PREA_MULTE_CERERI', cauza);
}

/**
 * Resolves the account of a request from its API key (only the key's SHA-256 is looked up).
 * Lookups are cached for 5 s, so a revoked key stops working within 5 s.
 *
 * Abuse limits: an address with more than GATEWAY_AUTH_FAILURES_PER_MIN failed authentications
 * in a minute gets 429 instead of 401 for the rest of that minute (a valid key from it still
 * works: a workshop behind the same address is not locked out); the journal gets the first
 * failure, the lock-out and a summary of the window, not a row per failure. A key making more
 * than GATEWAY_KEY_REQUESTS_PER_MIN requests in a minute (on all servers together), or more than
 * GATEWAY_KEY_REQUESTS_PER_S in a second on this server, gets 429.
 */
export function apiKeyAuth(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const cache = new Map<string, { at: number; actor: Actor | null }>();
  const failures = windowCounter({ windowMs: MINUTE_MS, scope: 'api_auth_esecuri', sync: ctx.windows });
  const perKey = windowCounter({ windowMs: MINUTE_MS, scope: 'api_cheie', sync: ctx.windows });
  // This server's own: what it guards is this server's event loop, so no other server's hits count.
  const perKeyHere = createWindowCounter({ windowMs: SECOND_MS });
  const { GATEWAY_AUTH_FAILURES_PER_MIN: maxFailures, GATEWAY_KEY_REQUESTS_PER_MIN: maxPerKey, GATEWAY_KEY_REQUESTS_PER_S: maxPerSecond } = ctx.config;

  function refuse(c: Context<AppEnv>, motiv: 'cheie_lipsa' | 'cheie_invalida') {
    const address = clientAddress(c, ctx.config);
    const hit = failures.hit(address);
    const journal = (event: JournalEventName, data: Record<string, unknown>) =>
      ctx.journal.write({ event, level: 'warn', requestId: c.get('requestId'), data: { adresa: maskAddress(address), ...data } });
    if (hit.previous > maxFailures) journal('api_auth_esuat_rezumat', { esecuri: hit.previous, fereastra_s: MINUTE_MS / 1000 });
    if (hit.count === 1) journal('api_auth_esuat', { motiv, path: c.req.path });
    if (hit.count === maxFailures + 1) journal('api_auth_limitat', { esecuri: hit.count, fereastra_s: MINUTE_MS / 1000 });
    if (hit.count > maxFailures) return tooMany(c, hit.retryAfterS, 'Prea multe autentificări eșuate de la această adresă; reîncercați după intervalul din Retry-After.');
    return errorResponse(c, 'NEAUTENTIFICAT', motiv === 'cheie_lipsa' ? 'Cererea nu conține o cheie API.' : 'Cheia API nu este validă sau a fost revocată.');
  }

  async function lookup(hash: string): Promise<Actor | null> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && now - hit.at < CACHE_MS) return hit.actor;
    const key = await activeKey(ctx.db, hash);
    const actor: Actor | null = key ? { kind: 'key', accountId: key.accountId, keyId: key.keyId } : null;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(hash, { at: now, actor });
    return actor;
  }

  return async (c, next) => {
    const key = presentedKey((name) => c.req.header(name));
    if (key === undefined) {
      if (ctx.config.GATEWAY_REQUIRE_API_KEY) return refuse(c, 'cheie_lipsa');
      c.set('actor', { kind: 'dev', accountId: DEFAULT_ACCOUNT_ID });
      return next();
    }
    const hash = keyHashOf(key);
    const actor = hash === null ? null : await lookup(hash);
    if (actor?.kind !== 'key') return refuse(c, 'cheie_invalida');
    if (maxPerKey > 0) {
      const hit = perKey.hit(String(actor.keyId));
      if (hit.count > maxPerKey) return tooMany(c, hit.retryAfterS, `Cheia a depășit limita de cereri pe minut: ${maxPerKey} (GATEWAY_KEY_REQUESTS_PER_MIN).`);
    }
    if (maxPerSecond > 0 && perKeyHere.hit(String(actor.keyId)).count > maxPerSecond) {
      return tooMany(c, 1, `Cheia a depășit limita de cereri pe secundă la acest server: ${maxPerSecond} (GATEWAY_KEY_REQUESTS_PER_S).`);
    }
    c.set('actor', actor);
    return next();
  };
}
