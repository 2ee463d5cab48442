import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import { applyBulk, previewBulk, type BulkTarget } from '../../services/submissions/bulk';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { errorNotice } from '../notice';
import { BulkConfirm, BulkDone } from './bulk';
import { costlyWeb } from './costly';
import { SubmissionsQuery, dashboardFilters } from './query';

/** The rows ticked on one page are few; more than this is no page of ours. */
const MAX_TICKED = 200;

const Id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A bulk form: the action, then either `tot` with the list's filters or the ticked ids. */
const BulkForm = z.object({
  actiune: z.enum(['repune', 'sterge']),
  tot: z.literal('1').optional(),
  // One ticked row is a string, several an array.
  id: z.preprocess((v) => (v === undefined ? [] : [v].flat()), z.array(Id).max(MAX_TICKED)),
  amprenta: z
    .string()
    .regex(/^[A-Za-z0-9_-]{22}$/)
    .optional(),
});

function parse(fields: Record<string, unknown>) {
  const form = BulkForm.safeParse(fields);
  // The filters are read by the list's own schema, so "all in this view" is the list's rule.
  const q = SubmissionsQuery.safeParse(Object.fromEntries(Object.entries(fields).filter(([k]) => k in SubmissionsQuery.shape)));
  if (!form.success || !q.success) return undefined;
  const all = form.data.tot === '1';
  if (!all && form.data.id.length === 0) return { empty: true as const };
  const target: BulkTarget = all ? { filters: dashboardFilters(q.data) } : { ids: [...new Set(form.data.id)] };
  return {
    empty: false as const,
    action: form.data.actiune === 'repune' ? ('requeue' as const) : ('delete' as const),
    target,
    all,
    q: q.data,
    ids: form.data.id,
    fingerprint: form.data.amprenta,
  };
}

/** Bulk delete and requeue from the list: a counted confirmation, then the action itself. */
export function bulkRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.post('/trimiteri/actiuni', async (c) => {
    const input = parse(await readForm(c));
    if (!input) return errorNotice(c, 'FORMULAR_INVALID', 'Acțiunea sau selecția nu sunt valide: alegeți rânduri (cel mult 200) sau „toate din această vedere”.');
    if (input.empty) return errorNotice(c, 'FORMULAR_INVALID', 'Alegeți cel puțin o trimitere sau bifați „toate din această vedere”.');
    const plan = await previewBulk({ ctx, actor: c.get('actor'), action: input.action, target: input.target });
    return c.html(<BulkConfirm plan={plan} selection={{ q: input.q, all: input.all, ids: input.ids }} />);
  });

  // Up to a view's every row deleted or re-queued: costly work of the account (http/cost-budget.ts).
  app.post('/trimiteri/actiuni/executa', costlyWeb(ctx), async (c) => {
    const input = parse(await readForm(c));
    if (!input || input.empty || !input.fingerprint) return errorNotice(c, 'FORMULAR_INVALID', 'Confirmarea nu este validă; porniți acțiunea din nou din listă.');
    try {
      const { done } = await applyBulk({
        ctx,
        actor: c.get('actor'),
        action: input.action,
        target: input.target,
        confirmed: input.fingerprint,
        requestId: c.get('requestId'),
      });
      c.header('HX-Trigger', 'coada:schimbata');
      return c.html(<BulkDone action={input.action} done={done} />);
    } catch (error) {
      if (error instanceof AppError && error.cod === 'CONFLICT_STARE') {
        c.header('HX-Trigger', 'coada:schimbata');
        return errorNotice(c, 'CONFLICT_STARE', error.cauza);
      }
      throw error;
    }
  });

  return app;
}
