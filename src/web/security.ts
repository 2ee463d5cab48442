import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { allowsLargeForm, readForm } from './form';
import { OWN_PAGES_CSP } from '../http/headers';

/**
 * Headers of every web response. The CSP allows no inline script, no eval and no inline
 * style: htmx's trigger filters and hx-on need eval, so behaviour lives in /static/app.js.
 * `same-origin` referrers (not `no-referrer`) so that a form post carries its Origin.
 */
export const webHeaders = secureHeaders({
  contentSecurityPolicy: { defaultSrc: ["'self'"], ...OWN_PAGES_CSP },
  referrerPolicy: 'same-origin',
  crossOriginEmbedderPolicy: false,
  // Browsers ignore it (with a console error on every page) over plain HTTP on a LAN name,
  // where a workshop's gateway often runs; the pages open no other window anyway.
  crossOriginOpenerPolicy: false,
  // Sent by the whole app, and only over HTTPS (http/headers.ts strictTransport).
  strictTransportSecurity: false,
});

export function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a state-changing request comes from our own pages: an `Origin` naming another
 * site, or `Sec-Fetch-Site` saying cross-site, is refused. `Origin: null` and a missing
 * Origin (older browsers, scripts) fall back on the token alone.
 */
export function fromOwnSite(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin && origin !== 'null') {
    const host = c.req.header('host');
    try {
      return host !== undefined && new URL(origin).host === host;
    } catch {
      return false;
    }
  }
  const site = c.req.header('sec-fetch-site');
  return site === undefined || site === 'same-origin' || site === 'none';
}

/**
 * The token of a web request: the X-CSRF-Token header (htmx), or the _csrf form field. A large
 * form (the browser's upload) must carry it in the header: its body is read only after the
 * session, the token and its admission, so one without the header is refused unread.
 */
export async function presentedToken(c: Context): Promise<string | undefined> {
  const header = c.req.header('x-csrf-token');
  if (header) return header;
  if (allowsLargeForm(c)) return undefined;
  const body = await readForm(c);
  return typeof body._csrf === 'string' ? body._csrf : undefined;
}

export const isUnsafeMethod = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);
