import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { servedOverHttps } from '../config';
import type { AppContext } from '../context';
import { findSession, userActor } from '../services/users/sessions';
import type { WebEnv } from './env';
import { errorNotice } from './notice';
import { fromOwnSite, isUnsafeMethod, presentedToken, sameToken } from './security';

/**
 * Over HTTPS cookies are `__Host-` and Secure: when the public address is https (behind the
 * TLS proxy, docs/operations-proxy.md), or the request itself came over TLS.
 */
function secure(c: Context, ctx: AppContext): boolean {
  return servedOverHttps(ctx.config) || new URL(c.req.url).protocol === 'https:';
}

const cookieName = (c: Context, ctx: AppContext, base: string) => (secure(c, ctx) ? `__Host-${base}` : base);

/**
 * A dashboard cookie: HttpOnly, path / (which `__Host-` requires), Secure over HTTPS; it ends
 * with the browser session unless `maxAgeS` is given.
 */
export function setWebCookie(c: Context, ctx: AppContext, base: string, value: string, sameSite: 'Lax' | 'Strict', maxAgeS?: number) {
  setCookie(c, cookieName(c, ctx, base), value, { path: '/', httpOnly: true, sameSite, secure: secure(c, ctx), maxAge: maxAgeS });
}

export function clearWebCookie(c: Context, ctx: AppContext, base: string) {
  deleteCookie(c, cookieName(c, ctx, base), { path: '/', secure: secure(c, ctx) });
}

/** A cookie's value, or undefined when absent or longer than any value we set under that name. */
export function readWebCookie(c: Context, ctx: AppContext, base: string, maxLength = 100): string | undefined {
  const value = getCookie(c, cookieName(c, ctx, base));
  return value && value.length <= maxLength ? value : undefined;
}

const SESSION_COOKIE = 'gw_sesiune';

export const setSessionCookie = (c: Context, ctx: AppContext, token: string) => setWebCookie(c, ctx, SESSION_COOKIE, token, 'Lax');
export const clearSessionCookie = (c: Context, ctx: AppContext) => clearWebCookie(c, ctx, SESSION_COOKIE);
export const sessionToken = (c: Context, ctx: AppContext) => readWebCookie(c, ctx, SESSION_COOKIE);

/**
 * Every signed-in path: the session from the cookie (a page without one is sent to /login
 * with a 303; an htmx request is told to load /login as a whole page), the Actor for the
 * services, and for a state-changing request the CSRF checks (same site, and the session's
 * token in X-CSRF-Token or _csrf), refused with 403.
 */
export function signedIn(ctx: AppContext): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const token = sessionToken(c, ctx);
    const session = token ? await findSession(ctx, token) : null;
    if (!session) {
      if (c.req.header('hx-request')) return c.body(null, 200, { 'HX-Redirect': '/login' });
      return c.redirect('/login', 303);
    }
    if (isUnsafeMethod(c.req.method) && !(fromOwnSite(c) && sameToken(await presentedToken(c), session.csrfToken))) {
      return errorNotice(c, 'NEAUTORIZAT_CSRF');
    }
    c.set('session', session);
    c.set('actor', userActor(session.user));
    await next();
  };
}
