import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context';
import { accountAlerts } from '../services/accounts/alerts';
import type { WebEnv } from './env';

/**
 * After the session: the account's banners, loaded once for a request that renders a whole
 * page (every page handler hands `c.get('alerts')` to the Layout). Fragments htmx swaps into a
 * page, and htmx actions, have no banners and cost no query.
 */
export function withAlerts(ctx: AppContext): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (!c.req.header('hx-request') && !c.req.path.startsWith('/_fragments/')) {
      c.set('alerts', await accountAlerts({ ctx, actor: c.get('actor') }));
    }
    await next();
  };
}
