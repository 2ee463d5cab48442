import type { Context, MiddlewareHandler } from 'hono';

/**
 * Sets a header on the answer a handler already made, in place. Hono's `c.header` after
 * `next()` rebuilds a finished answer around its body as a stream, which @hono/node-server
 * then sends chunked, a few times the cost of the answer itself (measured: ~8 % of a POST's
 * time). A native answer with immutable headers (none of ours so far) is still rebuilt.
 */
function setOnAnswer(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/**
 * `X-Content-Type-Options: nosniff` on every answer it wraps, errors included: a JSON answer
 * that echoes what a client sent must never be read by a browser as HTML or script.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  setOnAnswer(c, 'X-Content-Type-Options', 'nosniff');
};

/**
 * `Cache-Control: no-store` on every answer it wraps, redirects included: a signed-in page
 * on a workshop's shared PC is kept by no cache, so after sign-out neither Back nor the disk
 * shows it.
 */
export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  setOnAnswer(c, 'Cache-Control', 'no-store');
};

/**
 * `Strict-Transport-Security` on every answer when the gateway is reached over HTTPS
 * (GATEWAY_PUBLIC_URL https://...): a browser that once reached it goes on over TLS only. Not
 * over plain HTTP on a LAN name, where it would lock the browser out of the only address there
 * is. Without includeSubDomains: the gateway does not speak for the rest of its domain.
 */
export function strictTransport(https: boolean): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (https) setOnAnswer(c, 'Strict-Transport-Security', 'max-age=31536000');
  };
}

/**
 * The content security policy of our own pages (the dashboard, /docs): scripts, styles and
 * connections from this origin only, images also inline (`data:`), no framing, no plugins.
 */
export const OWN_PAGES_CSP = {
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
};
