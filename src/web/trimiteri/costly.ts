import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../../context';
import { type CostRefusal, costly, type Refuse } from '../../http/cost-budget';
import type { WebEnv } from '../env';
import { errorNotice } from '../notice';

/** The dashboard's refusal of costly work past the account's budget: the catalog's notice, at its status, with Retry-After. */
export const refuseNotice: Refuse = (c, cod, cauza) => errorNotice(c, cod, cauza);

/**
 * The dashboard's costly work (http/cost-budget.ts): admitted within the account's budget, or
 * answered by `refuse` (a notice by default; a screen passes its own view with the notice in it).
 */
export function costlyWeb(
  ctx: AppContext,
  options: {
    isCostly?: (c: Context<WebEnv>) => boolean | Promise<boolean>;
    refuse?: (c: Context<WebEnv>, cod: CostRefusal['cod'], cauza: string) => Response | Promise<Response>;
  } = {},
): MiddlewareHandler<WebEnv> {
  return costly<WebEnv>(ctx, { isCostly: options.isCostly, refuse: (options.refuse as Refuse | undefined) ?? refuseNotice });
}

/** A list or page with a search term: its pattern is matched against the account's rows. */
export const hasSearch = (c: Context<WebEnv>) => (c.req.query('cauta') ?? '').trim() !== '';
