import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a sane incoming X-Request-ID, else makes one; every response carries it. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const id = incoming && SANE.test(incoming) ? incoming : randomUUID();
  c.set('requestId', id);
  c.header('X-Request-ID', id);
  await next();
  c.res.headers.set('X-Request-ID', id);
};
