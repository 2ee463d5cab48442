import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { Actor, AppContext } from '../../context';
import { AppError } from '../../errors';
import { idParam } from '../../routes/params';
import { deleteSubmission, requeueSubmission } from '../../services/submissions/lifecycle';
import { correctSubmission } from '../../services/submissions/correct';
import { getSubmission, listAttempts, type SubmissionRecord } from '../../services/submissions/read';
import { pendingOperations, saveMapping } from '../../services/operations/mappings';
import { allows } from '../../domain/statuses';
import { statusOf } from '../../http/status';
import { MappingForm, requeuedText, seriousRefusal, unconfirmedSerious } from '../mapari/form';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { errorNotice } from '../notice';
import { bulkRoutes } from './bulk-routes';
import { costlyWeb, hasSearch } from './costly';
import { readCorrection, type CorrectionState } from './correction';
import { SubmissionsFragment } from './list';
import { loadList } from './load';
import { SubmissionsPage } from './page';
import { DeletedPanel, SubmissionPanel, type PanelNotice } from './panel';
import { LivePanel, panelVersion } from './live-panel';
import { SubmissionsQuery, queryString } from './query';
import { listImportBatches } from '../../services/import';
import { EarlierImports, UploadArea } from '../import/home';

/** The codes a held submission waits for, with their suggestions, for the panel's inline mapping. */
async function mappingFor(ctx: AppContext, actor: Actor, record: SubmissionRecord) {
  if (!allows(record.status, 'map') || record.nemapate.length === 0) return undefined;
  const [pending, nomenclator] = await Promise.all([pendingOperations({ ctx, actor }), ctx.nomenclator.get(ctx.db)]);
  return { codes: pending.filter((op) => record.nemapate.includes(op.codOpService)), nomenclator };
}

/** Runs a panel action; the 409 it may be refused with is shown in the panel, as a notice. */
async function orConflictNotice(c: Context<WebEnv>, ctx: AppContext, id: number, action: () => Promise<Response>): Promise<Response> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError && error.cod === 'CONFLICT_STARE') return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: error.cauza });
    throw error;
  }
}

/** The panel of one submission (404 for another account's id), wrapped so that it follows its state. */
async function panelView(ctx: AppContext, actor: Actor, id: number, notice?: PanelNotice, correction?: CorrectionState) {
  const record = await getSubmission({ ctx, actor, id });
  const [attempts, mapping] = await Promise.all([listAttempts({ ctx, submissionId: record.id }), mappingFor(ctx, actor, record)]);
  return (
    <LivePanel record={record} attempts={attempts.length}>
      <SubmissionPanel record={record} attempts={attempts} notice={notice} mapping={mapping} correction={correction} />
    </LivePanel>
  );
}

/** The panel, answered at its refusal's status (http/status.ts), or 200. */
async function panel(c: Context<WebEnv>, ctx: AppContext, id: number, notice?: PanelNotice, correction?: CorrectionState) {
  const status = notice?.kind === 'error' && !notice.saved ? statusOf(notice.cod) : 200;
  return c.html(await panelView(ctx, c.get('actor'), id, notice, correction), status);
}

/** Trimiteri: the page, the list fragment it polls, the detail panel and its actions. */
export function submissionsRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.route('/', bulkRoutes(ctx));

  /** The page, with the panel of `id` open when there is one (a permalink, /trimiteri/{id}). */
  async function page(c: Context<WebEnv>, id?: number) {
    // ?tab=import and ?tab=coada lead here: the import screen is the home page's top.
    const parsed = SubmissionsQuery.safeParse(c.req.query());
    const q = parsed.success ? parsed.data : SubmissionsQuery.parse({});
    const { user, csrfToken } = c.get('session');
    // The panel first: another account's id is the same 404 as a missing one, before any list.
    const actor = c.get('actor');
    const open = id === undefined ? undefined : await panelView(ctx, actor, id);
    const [list, batches] = await Promise.all([loadList(ctx, actor, q), listImportBatches({ ctx, actor })]);
    const imports = (
      <>
        <UploadArea csrfToken={csrfToken} />
        <EarlierImports batches={batches} />
      </>
    );
    return c.html(
      <SubmissionsPage user={user} csrfToken={csrfToken} list={list} panel={open} now={ctx.clock()} invalidQuery={!parsed.success} alerts={c.get('alerts')} imports={imports} />,
    );
  }

  // A search is costly work of the account (http/cost-budget.ts); the list without one is not.
  app.get('/', costlyWeb(ctx, { isCostly: hasSearch }), (c) => page(c));
  app.get('/trimiteri/:id', (c) => page(c, idParam(c.req.param('id'))));

  /**
   * The list alone. A poll (app.js marks it X-Poll) sends the ETag it has and gets 304 when
   * nothing it shows changed; any other request (a filter, a chip, a page link) also puts the
   * filters into the page's URL.
   */
  app.get('/_fragments/coada', costlyWeb(ctx, { isCostly: hasSearch }), async (c) => {
    const parsed = SubmissionsQuery.safeParse(c.req.query());
    if (!parsed.success) {
      // A notice only: app.js shows it above the list it keeps (a failed answer never replaces the list).
      const cauza = 'Filtrele nu sunt valide: data în forma zz.ll.aaaa, căutarea de cel mult 40 de caractere, o cauză din listă.';
      return errorNotice(c, 'FORMULAR_INVALID', cauza);
    }
    const q = parsed.data;
    const html = await (<SubmissionsFragment {...(await loadList(ctx, c.get('actor'), q))} />).toString();
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

  /**
   * The panel alone. Its own poll (every 5 s while open, app.js marks it X-Poll) sends the
   * version it shows and gets 304 while the submission's state is unchanged, so a correction
   * being typed is not swapped away; when the worker moves it, the panel re-renders.
   */
  app.get('/_fragments/trimitere/:id', async (c) => {
    const id = idParam(c.req.param('id'));
    if (c.req.header('x-poll')) {
      const record = await getSubmission({ ctx, actor: c.get('actor'), id });
      const attempts = await listAttempts({ ctx, submissionId: id });
      if (c.req.header('if-none-match') === `"${panelVersion(record, attempts.length)}"`) return c.body(null, 304);
    }
    return panel(c, ctx, id);
  });

  app.post('/trimitere/:id/sterge', async (c) => {
    const id = idParam(c.req.param('id'));
    return orConflictNotice(c, ctx, id, async () => {
      await deleteSubmission({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
      c.header('HX-Trigger', 'coada:schimbata');
      return c.html(<DeletedPanel id={id} />);
    });
  });

  /** Maps one of the codes the submission waits for: a mapping of the account, so every held submission with it is re-resolved. */
  app.post('/trimitere/:id/mapeaza', costlyWeb(ctx, { refuse: (c, cod, cauza) => panel(c, ctx, idParam(c.req.param('id') ?? ''), { kind: 'error', cod, cauza }) }), async (c) => {
    const id = idParam(c.req.param('id'));
    const actor = c.get('actor');
    const record = await getSubmission({ ctx, actor, id });
    const fields = await readForm(c);
    const form = MappingForm.safeParse(fields);
    if (!form.success) return panel(c, ctx, id, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Alegeți codul registrului pentru operație.' });
    const serious = unconfirmedSerious(fields, [form.data]);
    if (serious) return panel(c, ctx, id, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: seriousRefusal(serious.cod_prestatie.toUpperCase()) });
    if (!record.nemapate.includes(form.data.cod_op_service.toUpperCase())) {
      return panel(c, ctx, id, { kind: 'error', cod: 'CONFLICT_STARE', cauza: 'Trimiterea nu mai așteaptă acest cod (a fost mapat între timp).' });
    }
    try {
      const { mapping, reResolution } = await saveMapping({ ctx, actor, input: form.data, requestId: c.get('requestId') });
      c.header('HX-Trigger', 'coada:schimbata');
      return panel(c, ctx, id, {
        kind: 'ok',
        text: `Maparea ${mapping.codOpService} → ${mapping.codPrestatie} a fost salvată; ${requeuedText(reResolution)}`,
      });
    } catch (error) {
      if (error instanceof AppError && error.cod === 'CERERE_INVALIDA')
        return panel(c, ctx, id, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Codul ales nu există în nomenclatorul registrului.' });
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
    const actor = c.get('actor');
    await getSubmission({ ctx, actor, id });
    const form = readCorrection(await readForm(c));
    if (!form.ok) {
      const { values, errors } = form;
      return panel(c, ctx, id, { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Datele nu au fost salvate: corectați câmpurile marcate.' }, { values, errors });
    }
    return orConflictNotice(c, ctx, id, async () => {
      const { status } = await correctSubmission({ ctx, actor, id, changes: form.input, requestId: c.get('requestId') });
      c.header('HX-Trigger', 'coada:schimbata');
      const notice: PanelNotice =
        status === 'needs_data'
          ? { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Datele au fost salvate, dar mai sunt de corectat (vedeți câmpurile marcate).', saved: true }
          : { kind: 'ok', text: status === 'queued' ? 'Datele sunt corecte: trimiterea a intrat în coadă.' : 'Datele sunt corecte; trimiterea așteaptă maparea unui cod.' };
      return panel(c, ctx, id, notice);
    });
  });

  app.post('/trimitere/:id/repune', async (c) => {
    const id = idParam(c.req.param('id'));
    return orConflictNotice(c, ctx, id, async () => {
      await requeueSubmission({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
      c.header('HX-Trigger', 'coada:schimbata');
      return panel(c, ctx, id, { kind: 'ok', text: 'Trimiterea a fost repusă în coadă; lucrătorul o va trimite în curând.' });
    });
  });

  return app;
}
