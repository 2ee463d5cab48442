import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { httpStatus } from '../errors';
import { discardBody } from './body';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';

/** How long a refused upload is told to wait: about what a large file takes to stage. */
const RETRY_AFTER_S = 10;

/**
 * Lets an upload in before its body is read, or answers at once: 429 when its account has as
 * many uploads in progress as it may, 503 when the process has (stagings.ts `admit`). The
 * place is the request's until it answers, and the background staging's after that. A refused
 * body is read and dropped as it arrives (discardBody), so the client gets the answer and the
 * refusal holds no memory, connection of the pool or place.
 */
export function admitUpload(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const admission = ctx.importStagings.admit(c.get('actor').accountId);
    if ('refused' in admission) {
      await discardBody(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
      c.header('Retry-After', String(RETRY_AFTER_S));
      const [cod, cauza] =
        admission.refused === 'account'
          ? (['IMPORT_PREA_MULTE_INCARCARI', `Contul are deja ${admission.limit} fișiere în curs de încărcare.`] as const)
          : (['SERVER_OCUPAT', `Serverul încarcă deja ${admission.limit} fișiere.`] as const);
      return errorResponse(c, httpStatus(cod), cod, cauza);
    }
    c.set('upload', admission);
    try {
      await next();
    } finally {
      admission.release();
    }
  };
}
