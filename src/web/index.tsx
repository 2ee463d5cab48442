import { Hono, type Context } from 'hono';
import type { AppContext } from '../context';
import { AppError } from '../errors';
import { isAbortedBody } from '../http/body';
import type { RefuseBody } from '../http/body-refusals';
import { noStore } from '../http/headers';
import { DATABASE_DOWN_CAUSE, DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../http/database-down';
import { reportUnexpected } from '../http/unexpected';
import { coadaRoutes } from './coada/routes';
import { contRoutes } from './cont/routes';
import { devicesRoutes } from './cont/devices-routes';
import { peopleRoutes } from './cont/people-routes';
import { linkRoutes } from './links/routes';
import { signupRoutes } from './signup/routes';
import { createMailer } from '../services/mail/mailer';
import type { WebEnv } from './env';
import { jurnalRoutes } from './jurnal/routes';
import { loginRoutes } from './login/routes';
import { mapariRoutes } from './mapari/routes';
import { errorNotice } from './notice';
import { integrareRoutes } from './integrare/routes';
import { formRefusal, guardForm } from './form';
import { allowUpload, importRoutes, isUpload, UPLOAD_PATH } from './import/routes';
import { webHeaders } from './security';
import { signedIn } from './session';
import { withAlerts } from './alerts';
import { staticRoutes } from './static';
import { webNotFound } from './not-found';

/**
 * Every path the dashboard answers; the middleware is bound to these, never to /v1 or /healthz.
 * `/mapari/*` matches `/mapari` too: a path listed twice would run its middleware twice.
 */
const SIGNED_IN_PATHS = ['/', '/mapari/*', '/jurnal', '/cont/*', '/integrare/*', '/_fragments/*', '/trimitere/*', '/trimiteri/*', '/import/*', '/_import/*'];
/** The forms shown before a session exists: sign-in, sign-up, "Am uitat parola", a link's password. */
const PUBLIC_FORM_PATHS = ['/login', '/logout', '/inregistrare', '/parola-uitata', '/parola-noua', '/invitatie'];
const WEB_PATHS = [...SIGNED_IN_PATHS, ...PUBLIC_FORM_PATHS, '/static/*'];

/** Whether a route path is the dashboard's (HTML for a browser), not the JSON API's the OpenAPI document describes. */
export function isDashboardPath(path: string): boolean {
  return WEB_PATHS.some((p) => p === path || (p.endsWith('/*') && (path === p.slice(0, -2) || path.startsWith(p.slice(0, -1)))));
}

/** The JSON API's paths and its documents: an unknown one is the JSON 404, any other the dashboard's page. */
export function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/') || path.startsWith('/docs/');
}

/** A GET that shows a whole page: not an htmx fragment, except htmx's own reload of a page from history. */
function isPageRequest(c: Context): boolean {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return false;
  return c.req.header('hx-request') !== 'true' || c.req.header('hx-history-restore-request') === 'true';
}

/**
 * The dashboard: server-rendered pages (hono/jsx) and the fragments htmx swaps. Errors are
 * shown as a notice in the catalog's words; another account's id is the same 404 as a
 * missing one.
 */
export function webRoutes(ctx: AppContext, refuseBody: RefuseBody) {
  const app = new Hono<WebEnv>();
  const mailer = createMailer(ctx.config);
  for (const path of WEB_PATHS) app.use(path, webHeaders);
  app.use(UPLOAD_PATH, allowUpload(ctx));
  for (const path of [...SIGNED_IN_PATHS, ...PUBLIC_FORM_PATHS]) {
    // Before the session check, so the redirect to /login is not kept either.
    app.use(path, noStore);
    // The browser's upload reads its (large) body only once signed in and admitted (import/upload-routes.tsx).
    app.use(path, guardForm(refuseBody, isUpload));
  }
  for (const path of SIGNED_IN_PATHS) {
    app.use(path, signedIn(ctx));
    app.use(path, withAlerts(ctx));
  }
  app.route('/', staticRoutes());
  app.route('/', loginRoutes(ctx));
  app.route('/', coadaRoutes(ctx));
  app.route('/', mapariRoutes(ctx));
  app.route('/', jurnalRoutes(ctx));
  app.route('/', contRoutes(ctx));
  app.route('/', peopleRoutes(ctx, mailer));
  app.route('/', devicesRoutes(ctx));
  app.route('/', signupRoutes(ctx));
  app.route('/', linkRoutes(ctx, mailer));
  app.route('/', importRoutes(ctx, refuseBody));
  app.route('/', integrareRoutes(ctx));
  const missingPage = webNotFound(ctx);
  app.onError((error, c) => {
    // A page the browser opens (an address typed, a link, Back) gets the 404 page every unknown path gets; htmx's fragments keep their notice.
    if (error instanceof AppError && error.cod === 'NEGASIT' && isPageRequest(c)) return missingPage(c);
    if (error instanceof AppError) {
      return errorNotice(c, error.cod, error.cod === 'NEGASIT' ? 'Elementul cerut nu există sau nu aparține contului dvs.' : error.cauza);
    }
    // A form the CSRF check read (an upload without the X-CSRF-Token header) that was too large or broken.
    const refusedForm = formRefusal(c, refuseBody, error);
    if (refusedForm) return refusedForm;
    if (isAbortedBody(c, error)) {
      const refusal = refuseBody(c, 'aborted');
      return errorNotice(c, refusal.cod, refusal.cauza);
    }
    if (isDatabaseUnavailable(error)) {
      c.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
      return errorNotice(c, 'BAZA_INDISPONIBILA', DATABASE_DOWN_CAUSE);
    }
    const id = reportUnexpected(ctx, c, error);
    return errorNotice(c, 'EROARE_INTERNA', `Cod de urmărire: ${id}`);
  });
  return app;
}
