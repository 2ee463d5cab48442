import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { streamDownload } from '../../http/download';
import { idParam, INT4_MAX } from '../../routes/params';
import { ExportFailedQuery } from '../../routes/import/schemas';
import { exportFailedRows, batchSubmissionStatuses, getImportBatch, hasHeavyRows } from '../../services/import';
import { costlyWeb } from '../trimiteri/costly';
import type { WebEnv } from '../env';
import { Followed } from './commit';
import { ImportView, loadScreen, viewQuery } from './load';
import { ImportPage, ImportScreen } from './screen';
import { answerRefused, errorNotice, Notice } from '../notice';
import { Layout } from '../layout';

export const batchParam = (c: Context) => idParam(c.req.param('id') ?? '', INT4_MAX);

/** A view from the address; a bad one is refused as a notice, never shown as another view. */
function readView(c: Context) {
  return ImportView.safeParse(c.req.query());
}
const BAD_VIEW = 'Adresa nu este validă: starea este una dintre cele din listă, iar pagina un număr de rând.';

/** The batch's screen: the page, the fragment its chips, pages and progress poll ask for, and the download of the rows left out. */
export function screenRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  // A screen of heavy rows is costly work of the account (http/cost-budget.ts): its page is megabytes to open and classify.
  const isHeavy = (c: Context<WebEnv>) => hasHeavyRows(ctx.db, c.get('actor').accountId, batchParam(c));
  const heavy = costlyWeb(ctx, { isCostly: isHeavy });
  // The page opened by its address: refused inside the dashboard's frame, with the way back to it.
  const heavyPage = costlyWeb(ctx, {
    isCostly: isHeavy,
    refuse: (c, cod, cauza) => {
      const { user, csrfToken } = c.get('session');
      return answerRefused(
        c,
        <Layout title={`Import ${batchParam(c)}`} tab="trimiteri" user={user} csrfToken={csrfToken} alerts={c.get('alerts')}>
          <Notice kind="error" cod={cod} cauza={cauza} />
          <p>
            <a href={c.req.path}>Deschideți din nou importul</a> peste câteva secunde.
          </p>
        </Layout>,
        cod,
      );
    },
  });

  app.get('/import/:id', heavyPage, async (c) => {
    const id = batchParam(c);
    const view = readView(c);
    const { user, csrfToken } = c.get('session');
    const data = await loadScreen(ctx, c.get('actor'), id, view.success ? view.data : {}, view.success ? undefined : { kind: 'error', cod: 'FORMULAR_INVALID', cauza: BAD_VIEW });
    return c.html(<ImportPage user={user} csrfToken={csrfToken} alerts={c.get('alerts')} data={data} />);
  });

  /** The screen alone. A chip or a page link also puts its view into the address (Back returns to the one before); the progress poll does not. */
  app.get('/_import/:id', heavy, async (c) => {
    const id = batchParam(c);
    const view = readView(c);
    if (!view.success) return errorNotice(c, 'FORMULAR_INVALID', BAD_VIEW);
    const data = await loadScreen(ctx, c.get('actor'), id, view.data);
    if (!c.req.header('x-poll')) c.header('HX-Push-Url', `/import/${id}${viewQuery(view.data)}`);
    c.header('Vary', 'HX-Request');
    return c.html(<ImportScreen data={data} />);
  });

  /** How a committed import's submissions stand (its poll). */
  app.get('/_import/:id/urmarire', async (c) => {
    const id = batchParam(c);
    const actor = c.get('actor');
    await getImportBatch({ ctx, actor, batchId: id });
    return c.html(<Followed batchId={id} statuses={await batchSubmissionStatuses({ ctx, actor, batchId: id })} />);
  });

  app.get('/import/:id/netrimise', async (c) => {
    const id = batchParam(c);
    const q = ExportFailedQuery.safeParse(c.req.query());
    if (!q.success) return errorNotice(c, 'FORMULAR_INVALID', 'Formatul este csv sau xlsx.');
    const file = await exportFailedRows({ ctx, actor: c.get('actor'), batchId: id, format: q.data.format });
    return streamDownload(c, ctx.journal, file);
  });

  return app;
}
