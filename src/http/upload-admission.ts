import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { discardBody } from './body';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';
import type { UploadRefusal } from '../services/import';

/** How long a refused upload is told to wait: about what a large file takes to stage. */
export const RETRY_AFTER_S = 10;

/** Why an upload was not let in, in the catalog's words: the API's envelope and the dashboard's notice both say this. */
export function uploadRefusal(refusal: UploadRefusal) {
  if (refusal.refused === 'account') return { cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: `Contul are deja ${refusal.limit} fișiere în curs de încărcare.` } as const;
  const who = refusal.refused === 'process' ? 'Serverul încarcă' : 'Serverele gateway-ului încarcă';
  return { cod: 'SERVER_OCUPAT', cauza: `${who} deja ${refusal.limit} fișiere.` } as const;
}

/**
 * Lets an upload in before its body is read, or answers at once: 429 when its account has as
 * many uploads in progress as it may, 503 when the process or the deployment has (stagings.ts `enter`). The
 * place is the request's until it answers, and the background staging's after that. A refused
 * body is read and dropped as it arrives (discardBody), so the client gets the answer and the
 * refusal holds no memory, connection of the pool or place.
 */
export function admitUpload(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const admission = await ctx.importStagings.enter(ctx.uploadSql, c.get('actor').accountId);
    if ('refused' in admission) {
      await discardBody(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
      c.header('Retry-After', String(RETRY_AFTER_S));
      const { cod, cauza } = uploadRefusal(admission);
      return errorResponse(c, cod, cauza);
    }
    c.set('upload', admission);
    try {
      await next();
    } finally {
      await admission.release();
    }
  };
}
