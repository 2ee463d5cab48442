import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppContext } from '../../context';
import type { RefuseBody } from '../../http/body-refusals';
import type { WebEnv } from '../env';
import { allowLargeForm } from '../form';
import { actionRoutes } from './action-routes';
import { commitRoutes } from './commit-routes';
import { screenRoutes } from './screen-routes';
import { uploadRoutes } from './upload-routes';

/** Where the browser posts a file: the one dashboard form allowed a body past a form's 64 KiB. */
export const UPLOAD_PATH = '/_import/incarca';

export const isUpload = (c: Context) => c.req.method === 'POST' && c.req.path === UPLOAD_PATH;

/** Before the session's CSRF check, which reads the form when the token is not in a header: the upload's size is the API's. */
export function allowUpload(ctx: AppContext): MiddlewareHandler {
  return async (c, next) => {
    if (isUpload(c)) allowLargeForm(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
    await next();
  };
}

/**
 * The import screen (issue 19), one URL per step: the upload (on the home page), the batch's
 * screen `/import/{id}` (progress while staging; columns, fixes, preview and commit when
 * staged; the rows followed once committed), and the fragments and actions under `/_import/`.
 */
export function importRoutes(ctx: AppContext, refuseBody: RefuseBody) {
  const app = new Hono<WebEnv>();
  app.route('/', uploadRoutes(ctx, refuseBody));
  app.route('/', screenRoutes(ctx));
  app.route('/', actionRoutes(ctx));
  app.route('/', commitRoutes(ctx));
  return app;
}
