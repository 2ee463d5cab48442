import { Hono } from 'hono';
import { routePath } from 'hono/route';
import { jsonBodyLimit, publicBaseUrl, servedOverHttps } from './config';
import type { AppContext } from './context';
import { AppError } from './errors';
import { apiKeyAuth } from './http/auth';
import { closeUnreadBodies, isAbortedBody, limitBody } from './http/body';
import { createBodyRefusals } from './http/body-refusals';
import { costly, hasLargeBody, uploadCost } from './http/cost-budget';
import { admitUploadFirst, RETRY_AFTER_S } from './http/upload-admission';
import { databaseDown, isDatabaseUnavailable } from './http/database-down';
import { errorResponse, notFound } from './http/envelope';
import type { AppEnv } from './http/env';
import { noSniff, strictTransport } from './http/headers';
import { requestId } from './http/request-id';
import { reportUnexpected } from './http/unexpected';
import { rejectUnstorableUrl } from './http/validate';
import { auditRoutes } from './routes/audit';
import { conturiRoutes, pingRoutes } from './routes/conturi';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { importRoutes } from './routes/import';
import { integrareRoutes } from './routes/integrare';
import { mapariRoutes, nomenclatorRoutes } from './routes/mapari';
import { prezentariRoutes } from './routes/prezentari';
import { reguliTextRoutes } from './routes/reguli-text';
import { isApiPath, webRoutes } from './web';
import { webNotFound } from './web/not-found';

export function createApp(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  const refuseBody = createBodyRefusals(ctx);
  app.use(requestId);
  app.use(closeUnreadBodies);
  app.use(strictTransport(servedOverHttps(ctx.config)));
  app.use(rejectUnstorableUrl);
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const route = routePath(c);
    ctx.metrics.httpRequests.inc({ method: c.req.method, route, status: String(c.res.status) });
    ctx.metrics.httpDuration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
  });
  app.route('/', healthRoutes(ctx));
  app.route(
    '/',
    docsRoutes(() => app.routes, publicBaseUrl(ctx.config)),
  );
  app.route('/', integrareRoutes(ctx));
  app.use('/v1/*', noSniff);
  app.use('/v1/*', apiKeyAuth(ctx));
  // Before its body is read: an upload past the limits is refused holding nothing.
  app.post('/v1/import', admitUploadFirst(ctx), uploadCost(ctx));
  // A large body is costly work of its account (http/cost-budget.ts): let in, or refused, before it is read.
  app.use('/v1/*', costly(ctx, { isCostly: hasLargeBody(ctx.config) }));
  // After authentication: nobody without a key makes the server read a body.
  app.use(
    '/v1/*',
    limitBody({ json: jsonBodyLimit(ctx.config), upload: ctx.config.GATEWAY_MAX_BODY_BYTES }, (c, maxBytes) =>
      errorResponse(c, 'PREA_MARE', `Corpul cererii depășește ${maxBytes} octeți.`),
    ),
  );
  app.route('/v1/prezentari', prezentariRoutes(ctx));
  app.route('/v1/import', importRoutes(ctx));
  app.route('/v1/nomenclator', nomenclatorRoutes(ctx));
  app.route('/v1/mapari', mapariRoutes(ctx));
  app.route('/v1/reguli-text', reguliTextRoutes(ctx));
  app.route('/v1/conturi', conturiRoutes(ctx));
  app.route('/v1/ping', pingRoutes(ctx));
  app.route('/v1/audit', auditRoutes(ctx));

  app.route('/', webRoutes(ctx, refuseBody));

  const dashboardNotFound = webNotFound(ctx);
  app.notFound((c) => (isApiPath(c.req.path) ? notFound(c) : dashboardNotFound(c)));
  app.onError((error, c) => {
    if (error instanceof AppError) {
      // An upload refused by the queue's count at its insert (the rare race its admission lost).
      if (error.cod === 'IMPORT_PREA_MULTE_INCARCARI' || error.cod === 'SERVER_OCUPAT') c.header('Retry-After', String(RETRY_AFTER_S));
      return error.cod === 'NEGASIT' ? notFound(c) : errorResponse(c, error.cod, error.cauza);
    }
    if (isAbortedBody(c, error)) {
      const refusal = refuseBody(c, 'aborted');
      return errorResponse(c, refusal.cod, refusal.cauza);
    }
    // A failover or restart: the transaction rolled back with its connection, nothing is half-written.
    if (isDatabaseUnavailable(error)) return databaseDown(c);
    reportUnexpected(ctx, c, error);
    return errorResponse(c, 'EROARE_INTERNA', 'Eroare internă a serverului.');
  });
  return app;
}

export type App = ReturnType<typeof createApp>;
