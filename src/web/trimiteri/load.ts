import type { Actor, AppContext } from '../../context';
import { countCauses, dashboardCounts, listDashboard, viewTotal } from '../../services/submissions/dashboard';
import type { ListData } from './list';
import { type SubmissionsQuery, dashboardFilters, hasCauses, pageRequest } from './query';

/** Everything the list shows for `q`: the counts, the page with its total, the causes (the bench measures this too). */
export async function loadList(ctx: AppContext, actor: Actor, q: SubmissionsQuery): Promise<ListData> {
  const filters = dashboardFilters(q);
  const counting = dashboardCounts({ ctx, actor });
  // An unfiltered view's total is one of the counts: no second pass over the account's rows.
  const total = q.cauta || q.de_la || q.pana_la || q.cauza ? undefined : counting.then((c) => viewTotal(c, q.vedere));
  const [counts, page, causes] = await Promise.all([
    counting,
    listDashboard({ ctx, actor, filters, page: pageRequest(q), total }),
    hasCauses(q) ? countCauses({ ctx, actor, filters }) : [],
  ]);
  return { q, counts, page, causes };
}
