import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../../context';
import { type CostRefusal, costly, type Refuse } from '../../http/cost-budget';
import type { WebEnv } from '../env';
import { errorNotice } from '../notice';

/**
 * The dashboard's costly work (http/cost-budget.ts): admitted within the account's budget, or
 * answered by `refuse` (by default the catalog's notice, errorNotice, at its status with Retry-After;
 * a screen passes its own view with the notice in it).
 */
export function costlyWeb(
  ctx: AppContext,
  options: {
    isCostly?: (c: Context<WebEnv>) => boolean | Promise<boolean>;
    refuse?: (c: Context<WebEnv>, cod: CostRefusal['cod'], cauza: string) => Response | Promise<Response>;
  } = {},
): MiddlewareHandler<WebEnv> {
  return costly<WebEnv>(ctx, { isCostly: options.isCostly, refuse: (options.refuse as Refuse | undefined) ?? errorNotice });
}

/** A list or page with a search term: its pattern is matched against the account's rows. */
export const hasSearch = (c: Context<WebEnv>) => (c.req.query('cauta') ?? '').trim() !== '';
