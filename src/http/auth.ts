import { and, eq, isNull } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { apiKeys } from '../../db/schema';
import type { AppContext, Principal } from '../context';
import { sha256Hex } from '../crypto/hash';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

/** The API key of a request: `X-API-Key`, or `Authorization: Bearer <key>`. */
export function presentedKey(header: (name: string) => string | undefined): string | undefined {
  const direct = header('x-api-key')?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header('authorization') ?? '');
  return match?.[1];
}

/**
 * Resolves the account of a request from its API key (only the key's SHA-256 is looked up).
 * Lookups are cached for 5 s, so a revoked key stops working within 5 s.
 */
export function apiKeyAuth(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const cache = new Map<string, { at: number; principal: Principal | null }>();

  async function lookup(hash: string): Promise<Principal | null> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && now - hit.at < CACHE_MS) return hit.principal;
    const [row] = await ctx.db
      .select({ id: apiKeys.id, accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
    const principal = row ? { accountId: row.accountId, viaKey: true, keyId: row.id } : null;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(hash, { at: now, principal });
    return principal;
  }

  return async (c, next) => {
    const key = presentedKey((name) => c.req.header(name));
    if (key === undefined) {
      if (ctx.config.GATEWAY_REQUIRE_API_KEY) {
        ctx.journal.write({ event: 'api_auth_esuat', level: 'warn', requestId: c.get('requestId'), data: { motiv: 'cheie_lipsa', path: c.req.path } });
        return errorResponse(c, 401, 'NEAUTENTIFICAT', 'Cererea nu conține o cheie API.');
      }
      c.set('principal', { accountId: 1, viaKey: false, keyId: null });
      return next();
    }
    const principal = key.length <= 200 ? await lookup(sha256Hex(key)) : null;
    if (!principal) {
      ctx.journal.write({ event: 'api_auth_esuat', level: 'warn', requestId: c.get('requestId'), data: { motiv: 'cheie_invalida', path: c.req.path } });
      return errorResponse(c, 401, 'NEAUTENTIFICAT', 'Cheia API nu este validă sau a fost revocată.');
    }
    c.set('principal', principal);
    return next();
  };
}
