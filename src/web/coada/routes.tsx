import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import { idParam } from '../../routes/params';
import { deleteSubmission, requeueSubmission } from '../../services/submissions/lifecycle';
import { countByStatus, getSubmission, listAttempts, listSubmissions } from '../../services/submissions/read';
import type { WebEnv } from '../env';
import { Notice } from '../notice';
import { CoadaFragment } from './list';
import { CoadaPage } from './page';
import { DeletedPanel, SubmissionPanel, type PanelNotice } from './panel';
import { CoadaQuery, listFilters, queryString } from './query';

async function loadList(ctx: AppContext, accountId: number, q: CoadaQuery) {
  const [counts, page] = await Promise.all([countByStatus({ ctx, accountId }), listSubmissions({ ctx, accountId, filters: listFilters(q) })]);
  return { counts, page };
}

async function panel(c: Context<WebEnv>, ctx: AppContext, id: number, notice?: PanelNotice, status: 200 | 409 = 200) {
  const record = await getSubmission({ ctx, accountId: c.get('actor').accountId, id });
  const attempts = await listAttempts({ ctx, submissionId: record.id });
  return c.html(<SubmissionPanel record={record} attempts={attempts} notice={notice} />, status);
}

/** Trimiteri: the page, the list fragment it polls, the detail panel and its actions. */
export function coadaRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.get('/', async (c) => {
    // ?tab=import and ?tab=coada lead here (the import screen comes with its own issue).
    const parsed = CoadaQuery.safeParse(c.req.query());
    const q = parsed.success ? parsed.data : CoadaQuery.parse({});
    const { user } = c.get('session');
    const { counts, page } = await loadList(ctx, user.accountId, q);
    return c.html(<CoadaPage user={user} csrfToken={c.get('session').csrfToken} q={q} counts={counts} page={page} now={ctx.clock()} invalidQuery={!parsed.success} />);
  });

  /**
   * The list alone. A poll (app.js marks it X-Poll) sends the ETag it has and gets 304 when
   * nothing it shows changed; any other request (a filter, a chip, a page link) also puts the
   * filters into the page's URL.
   */
  app.get('/_fragments/coada', async (c) => {
    const parsed = CoadaQuery.safeParse(c.req.query());
    if (!parsed.success) {
      // Still the section, so that the next filter has somewhere to land.
      return c.html(
        <section id="coada">
          <Notice kind="error" cod="CERERE_INVALIDA" cauza="Filtrele nu sunt valide: data în forma zz.ll.aaaa, căutarea de cel mult 40 de caractere." />
        </section>,
        422,
      );
    }
    const q = parsed.data;
    const { counts, page } = await loadList(ctx, c.get('actor').accountId, q);
    const html = await (<CoadaFragment q={q} counts={counts} page={page} />).toString();
    const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-cache');
    c.header('Vary', 'HX-Request');
    if (c.req.header('x-poll')) {
      if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    } else {
      c.header('HX-Push-Url', `/${queryString(q)}`);
    }
    return c.html(html);
  });

  app.get('/_fragments/trimitere/:id', async (c) => panel(c, ctx, idParam(c.req.param('id'))));

  app.post('/trimitere/:id/sterge', async (c) => {
    const id = idParam(c.req.param('id'));
    try {
      await deleteSubmission({ ctx, accountId: c.get('actor').accountId, id, requestId: c.get('requestId') });
    } catch (error) {
      if (error instanceof AppError && error.status === 409) return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: error.cauza }, 409);
      throw error;
    }
    c.header('HX-Trigger', 'coada:schimbata');
    return c.html(<DeletedPanel id={id} />);
  });

  app.post('/trimitere/:id/repune', async (c) => {
    const id = idParam(c.req.param('id'));
    try {
      await requeueSubmission({ ctx, accountId: c.get('actor').accountId, id, requestId: c.get('requestId') });
    } catch (error) {
      if (error instanceof AppError && error.status === 409) return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: error.cauza }, 409);
      throw error;
    }
    c.header('HX-Trigger', 'coada:schimbata');
    return panel(c, ctx, id, { kind: 'ok', text: 'Trimiterea a fost repusă în coadă; lucrătorul o va trimite în curând.' });
  });

  return app;
}
