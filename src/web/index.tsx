import { Hono, type Context } from 'hono';
import type { AppContext } from '../context';
import { AppError } from '../errors';
import { isAbortedBody } from '../http/body';
import type { RefuseBody } from '../http/body-refusals';
import { noStore } from '../http/headers';
import { DATABASE_DOWN_CAUSE, DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../http/database-down';
import { reportUnexpected } from '../http/unexpected';
import { submissionsRoutes } from './trimiteri/routes';
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
import { vehiculRoutes } from './vehicul/routes';
import { formRefusal, guardForm } from './form';
import { allowUpload, importRoutes, isUpload, UPLOAD_PATH } from './import/routes';
import { webHeaders } from './security';
import { signedIn } from './session';
import { withAlerts } from './alerts';
import { staticRoutes } from './static';
import { webNotFound } from './not-found';

/**
 * The patterns middleware is bound to, read off the screens' own routes, so a route added to a
 * screen is covered with no list to update: `/{segment}/*` for a first segment with paths under
 * it (it matches `/{segment}` too), the path itself otherwise. Each pattern once: a pattern
 * listed twice would run its middleware twice.
 */
export function routePatterns(screens: readonly { routes: readonly { path: string }[] }[]): string[] {
  const patterns = new Map<string, string>();
  for (const { path } of screens.flatMap((screen) => screen.routes)) {
    const segment = path.split('/')[1] ?? '';
    const nested = path.split('/').length > 2 || patterns.get(segment)?.endsWith('/*');
    patterns.set(segment, segment === '' ? '/' : nested ? `/${segment}/*` : path);
  }
  return [...patterns.values()];
}

const matches = (pattern: string, path: string) => pattern === path || (pattern.endsWith('/*') && (path === pattern.slice(0, -2) || path.startsWith(pattern.slice(0, -1))));

// The dashboard's patterns are the same whatever the context it is built with: kept from the first build.
let dashboardPatterns: readonly string[] = [];

/** Whether a route path is the dashboard's (HTML for a browser), not the JSON API's the OpenAPI document describes. */
export function isDashboardPath(path: string): boolean {
  return dashboardPatterns.some((pattern) => matches(pattern, path));
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
  // The screens behind a session, and those open to anyone (sign-in, the assets).
  const mailer = createMailer(ctx.config);
  const signedInScreens = [
    submissionsRoutes(ctx),
    mapariRoutes(ctx),
    jurnalRoutes(ctx),
    contRoutes(ctx),
    peopleRoutes(ctx, mailer),
    devicesRoutes(ctx),
    importRoutes(ctx, refuseBody),
    integrareRoutes(ctx),
    vehiculRoutes(ctx),
  ];
  // The forms shown before a session exists: sign-in, sign-up, "Am uitat parola", a link's password.
  const publicScreens = [loginRoutes(ctx), signupRoutes(ctx), linkRoutes(ctx, mailer)];
  const assets = staticRoutes();
  const signedInPaths = routePatterns(signedInScreens);
  const formPaths = [...signedInPaths, ...routePatterns(publicScreens)];
  dashboardPatterns = [...formPaths, ...routePatterns([assets])];

  const app = new Hono<WebEnv>();
  for (const path of dashboardPatterns) app.use(path, webHeaders);
  app.use(UPLOAD_PATH, allowUpload(ctx));
  for (const path of formPaths) {
    // Before the session check, so the redirect to /login is not kept either.
    app.use(path, noStore);
    // The browser's upload reads its (large) body only once signed in and admitted (import/upload-routes.tsx).
    app.use(path, guardForm(refuseBody, isUpload));
  }
  for (const path of signedInPaths) {
    app.use(path, signedIn(ctx));
    app.use(path, withAlerts(ctx));
  }
  app.route('/', assets);
  for (const screen of publicScreens) app.route('/', screen);
  for (const screen of signedInScreens) app.route('/', screen);
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
