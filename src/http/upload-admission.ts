import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { admitUpload, uploadRefusal, type UploadAdmission } from '../services/import';
import { discardBody } from './body';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';

/** How long a refused upload is told to wait: about what a large file takes to stage. */
export const RETRY_AFTER_S = 10;

type Refusal = ReturnType<typeof uploadRefusal>;

/**
 * Lets an upload in before its body is read (services/import/queue.ts `admitUpload`), or
 * refuses it at once: 429 when its account has as many files waiting or staging as it may, 503
 * when the deployment has (or this server reads as many bodies). A refused body is read and
 * dropped as it arrives (discardBody), so the client gets the answer, with Retry-After, and
 * the refusal holds no memory or place.
 */
async function admitBeforeBody(ctx: AppContext, c: Context, accountId: number): Promise<{ admission: UploadAdmission } | { refused: Refusal }> {
  let admission: Awaited<ReturnType<typeof admitUpload>>;
  try {
    admission = await admitUpload(ctx, accountId);
  } catch (error) {
    // The database cannot be asked (503 BAZA_INDISPONIBILA): the client still sending its
    // file reads that answer, rather than a broken pipe.
    await discardBody(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
    throw error;
  }
  if (!('refused' in admission)) return { admission };
  await discardBody(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
  c.header('Retry-After', String(RETRY_AFTER_S));
  return { refused: uploadRefusal(admission) };
}

/**
 * An upload's admission, before anything reads its body: the place is the request's until it
 * answers (its file is then in the queue), in `c.get('upload')`. A refusal is answered by
 * `refuse` (the API's envelope by default; the dashboard passes its notice).
 */
export function admitUploadFirst<E extends AppEnv>(
  ctx: AppContext,
  refuse: (c: Context<E>, cod: Refusal['cod'], cauza: string) => Response | Promise<Response> = (c, cod, cauza) => errorResponse(c, cod, cauza),
): MiddlewareHandler<E> {
  return async (c, next) => {
    const entry = await admitBeforeBody(ctx, c, c.get('actor').accountId);
    if ('refused' in entry) return refuse(c, entry.refused.cod, entry.refused.cauza);
    c.set('upload', entry.admission);
    try {
      await next();
    } finally {
      entry.admission.release();
    }
  };
}
