import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import { idParam } from '../../routes/params';
import { deleteSubmission, requeueSubmission } from '../../services/submissions/lifecycle';
import { correctSubmission } from '../../services/submissions/correct';
import { countByStatus, getSubmission, listAttempts, listSubmissions, type SubmissionRecord } from '../../services/submissions/read';
import { pendingOperations, saveMapping } from '../../services/operations/mappings';
import { allows } from '../../domain/statuses';
import { MappingForm, requeuedText, seriousRefusal, unconfirmedSerious } from '../mapari/form';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { Notice } from '../notice';
import { readCorrection, type CorrectionState } from './correction';
import { CoadaFragment } from './list';
import { CoadaPage } from './page';
import { DeletedPanel, SubmissionPanel, type PanelNotice } from './panel';
import { CoadaQuery, listFilters, queryString } from './query';

async function loadList(ctx: AppContext, accountId: number, q: CoadaQuery) {
  const [counts, page] = await Promise.all([countByStatus({ ctx, accountId }), listSubmissions({ ctx, accountId, filters: listFilters(q) })]);
  return { counts, page };
}

/** The codes a held submission waits for, with their suggestions, for the panel's inline mapping. */
async function mappingFor(ctx: AppContext, accountId: number, record: SubmissionRecord) {
  if (!allows(record.status, 'map') || record.nemapate.length === 0) return undefined;
  const [pending, nomenclator] = await Promise.all([pendingOperations({ ctx, accountId }), ctx.nomenclator.get(ctx.db)]);
  return { codes: pending.filter((op) => record.nemapate.includes(op.codOpService)), nomenclator };
}

/** Runs a panel action; the 409 it may be refused with is shown in the panel, as a notice. */
async function orConflictNotice(c: Context<WebEnv>, ctx: AppContext, id: number, action: () => Promise<Response>): Promise<Response> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError && error.status === 409) return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: error.cauza }, 409);
    throw error;
  }
}

async function panel(c: Context<WebEnv>, ctx: AppContext, id: number, notice?: PanelNotice, status: 200 | 409 | 422 = 200, correction?: CorrectionState) {
  const accountId = c.get('actor').accountId;
  const record = await getSubmission({ ctx, accountId, id });
  const [attempts, mapping] = await Promise.all([listAttempts({ ctx, submissionId: record.id }), mappingFor(ctx, accountId, record)]);
  return c.html(<SubmissionPanel record={record} attempts={attempts} notice={notice} mapping={mapping} correction={correction} />, status);
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
    return c.html(
      <CoadaPage user={user} csrfToken={c.get('session').csrfToken} q={q} counts={counts} page={page} now={ctx.clock()} invalidQuery={!parsed.success} alerts={c.get('alerts')} />,
    );
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
    return orConflictNotice(c, ctx, id, async () => {
      await deleteSubmission({ ctx, accountId: c.get('actor').accountId, id, requestId: c.get('requestId'), actor: c.get('actor') });
      c.header('HX-Trigger', 'coada:schimbata');
      return c.html(<DeletedPanel id={id} />);
    });
  });

  /** Maps one of the codes the submission waits for: a mapping of the account, so every held submission with it is re-resolved. */
  app.post('/trimitere/:id/mapeaza', async (c) => {
    const id = idParam(c.req.param('id'));
    const accountId = c.get('actor').accountId;
    const record = await getSubmission({ ctx, accountId, id });
    const fields = await readForm(c);
    const form = MappingForm.safeParse(fields);
    if (!form.success) return panel(c, ctx, id, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Alegeți codul registrului pentru operație.' }, 422);
    const serious = unconfirmedSerious(fields, [form.data]);
    if (serious) return panel(c, ctx, id, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: seriousRefusal(serious.cod_prestatie.toUpperCase()) }, 422);
    if (!record.nemapate.includes(form.data.cod_op_service.toUpperCase())) {
      return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: 'Trimiterea nu mai așteaptă acest cod (a fost mapat între timp).' }, 409);
    }
    try {
      const { mapping, reResolution } = await saveMapping({ ctx, accountId, input: form.data, requestId: c.get('requestId'), actor: c.get('actor') });
      c.header('HX-Trigger', 'coada:schimbata');
      return panel(c, ctx, id, {
        kind: 'ok',
        text: `Maparea ${mapping.codOpService} → ${mapping.codPrestatie} a fost salvată; ${requeuedText(reResolution)}`,
      });
    } catch (error) {
      if (error instanceof AppError && error.status === 400)
        return panel(c, ctx, id, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Codul ales nu există în nomenclatorul registrului.' }, 422);
      throw error;
    }
  });

  /**
   * The correction of a submission whose content is to blame (domain/statuses.ts allowsCorrection):
   * classified again, queued when valid. A refused form is shown again as typed, each error at
   * its field; a 409 (a twin, a changed state) is a notice.
   */
  app.post('/trimitere/:id/corecteaza', async (c) => {
    const id = idParam(c.req.param('id'));
    const accountId = c.get('actor').accountId;
    await getSubmission({ ctx, accountId, id });
    const form = readCorrection(await readForm(c));
    if (!form.ok) {
      const { values, errors } = form;
      return panel(c, ctx, id, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Datele nu au fost salvate: corectați câmpurile marcate.' }, 422, { values, errors });
    }
    return orConflictNotice(c, ctx, id, async () => {
      const { status } = await correctSubmission({ ctx, accountId, id, changes: form.input, requestId: c.get('requestId'), actor: c.get('actor') });
      c.header('HX-Trigger', 'coada:schimbata');
      const notice: PanelNotice =
        status === 'needs_data'
          ? { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Datele au fost salvate, dar mai sunt de corectat (vedeți câmpurile marcate).' }
          : { kind: 'ok', text: status === 'queued' ? 'Datele sunt corecte: trimiterea a intrat în coadă.' : 'Datele sunt corecte; trimiterea așteaptă maparea unui cod.' };
      return panel(c, ctx, id, notice);
    });
  });

  app.post('/trimitere/:id/repune', async (c) => {
    const id = idParam(c.req.param('id'));
    return orConflictNotice(c, ctx, id, async () => {
      await requeueSubmission({ ctx, accountId: c.get('actor').accountId, id, requestId: c.get('requestId'), actor: c.get('actor') });
      c.header('HX-Trigger', 'coada:schimbata');
      return panel(c, ctx, id, { kind: 'ok', text: 'Trimiterea a fost repusă în coadă; lucrătorul o va trimite în curând.' });
    });
  });

  return app;
}
