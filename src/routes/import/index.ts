import { costly } from '../../http/cost-budget';
import { Hono, type Context } from 'hono';
import { actorLabel, type Actor, type AppContext } from '../../context';
import { streamDownload } from '../../http/download';
import { shapeError } from '../../http/envelope';
import { parseFormData, type FormPart } from '../../http/multipart';
import type { AppEnv } from '../../http/env';
import { jsonBody, parseQuery } from '../../http/validate';
import { describeRoute } from '../../openapi';
import {
  getImportBatch,
  saveColumnMapping,
  commitImportBatch,
  editImportRow,
  setRowReview,
  setRowLeftOut,
  exportFailedRows,
  previewImportBatch,
  queueUpload,
} from '../../services/import';
import { idParam, INT4_MAX } from '../params';
import { LARGE_PAGE } from '../prezentari';
import { presentBatch, presentColumnMapping, presentCommit, presentPreview, presentRowChange } from './present';
import { BatchAnswer, ColumnMappingAnswer, CommitAnswer, PreviewAnswer, RowChangeAnswer } from './answers';
import { ColumnMappingBody, CommitBody, ExportFailedQuery, PreviewQuery, RowEditBody, RowReviewBody, RowLeftOutBody, UploadForm } from './schemas';
import { journalActor } from '../../journal/actor';
import { hasHeavyRows, readUploadForm, type UploadedForm } from '../../services/import';

/** Reads the multipart upload (services/import/upload-form.ts: the same reading as the dashboard's), a problem as the 422 shape error. */
async function readUpload(c: Context<AppEnv>): Promise<{ ok: true; upload: UploadedForm } | { ok: false; response: Response }> {
  const fail = (type: string, loc: Array<string | number>, msg: string) => ({ ok: false as const, response: shapeError(c, [{ type, loc, msg }]) });
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return fail('multipart_required', ['body'], 'Se așteaptă multipart/form-data, cu fișierul în câmpul file.');
  }
  let parts: FormPart[];
  try {
    parts = parseFormData(c.get('rawBody') ?? Buffer.from(await c.req.arrayBuffer()), type);
  } catch {
    return fail('multipart_invalid', ['body'], 'Corpul multipart/form-data nu poate fi citit.');
  }
  const read = readUploadForm(parts, 'sheet');
  if (!read.ok) return fail(read.problem.type, ['body', read.problem.field], read.problem.message);
  return read;
}

/** Why a batch cannot change now (the 409 of the routes that change one). */
const NOT_EDITABLE = 'Importul a fost confirmat (IMPORT_DEJA_CONFIRMAT), este încă în curs de încărcare (IMPORT_IN_CURS) sau a eșuat (IMPORT_ESUAT)';

/** File import (issue 4): upload, column mapping, preview, row edit, commit, export of failed rows. */
export function importRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  type Params = { req: { param(name: string): string | undefined } };
  const batchId = (c: Params) => idParam(c.req.param('id') ?? '', INT4_MAX);
  const rowIndex = (c: Params) => idParam(c.req.param('i') ?? '', INT4_MAX);
  const audit = (c: { get(k: 'requestId'): string; get(k: 'actor'): Actor }, data: Record<string, unknown>) =>
    ctx.journal.write({ event: 'api_import', requestId: c.get('requestId'), accountId: c.get('actor').accountId, data: { ...data, ...journalActor(c.get('actor')) } });

  app.post(
    '/',
    describeRoute({
      summary: 'Încarcă un fișier xlsx, csv sau o tabelă .dbf (rândurile sunt puse deoparte pentru previzualizare)',
      rawBody: UploadForm,
      responses: {
        201: {
          schema: BatchAnswer,
          description:
            'Importul creat, cu status „queued”: fișierul așteaptă un proces de încărcare, care îl citește și îl încarcă („staging”: primele rânduri se văd deja în previzualizare; apoi „staged” sau „failed” cu error). Așteptați cu GET /v1/import/{id}.',
        },
        413: 'Fișier peste limita de mărime',
        415: 'Tip de fișier nesuportat',
        422: 'Fișier gol sau parolat, sau corp multipart greșit',
        429: 'Contul are deja destule fișiere în așteptare sau în curs de încărcare (Retry-After)',
        503: 'Gateway-ul are deja destule fișiere în curs de încărcare (Retry-After)',
      },
    }),
    async (c) => {
      const read = await readUpload(c);
      if (!read.ok) return read.response;
      const batch = await queueUpload({ ctx, actor: c.get('actor'), admission: c.get('upload'), ...read.upload, requestId: c.get('requestId') });
      audit(c, { op: 'upload', batch_id: batch.id, status: batch.status, rows: batch.rowCount, kind: batch.fileMeta.kind, size: read.upload.bytes.length });
      return c.json(presentBatch(batch), 201);
    },
  );

  app.get(
    '/:id',
    describeRoute({
      summary: 'Importul, ca la încărcare: status („queued”, „staging”, „staged”, „committed”, „failed”), rows_staged cât se încarcă, error când a eșuat',
      responses: { 200: { description: 'Importul', schema: BatchAnswer } },
    }),
    async (c) => c.json(presentBatch(await getImportBatch({ ctx, actor: c.get('actor'), batchId: batchId(c) }))),
  );

  app.get(
    '/:id/column-mapping',
    describeRoute({
      summary: 'Maparea coloanelor importului',
      responses: { 200: { description: 'Antetul și maparea', schema: ColumnMappingAnswer } },
    }),
    async (c) => c.json(presentColumnMapping(await getImportBatch({ ctx, actor: c.get('actor'), batchId: batchId(c) }))),
  );

  app.post(
    '/:id/column-mapping',
    describeRoute({
      summary: 'Salvează maparea coloanelor (reclasifică rândurile)',
      body: ColumnMappingBody,
      responses: { 200: { description: 'Maparea salvată', schema: ColumnMappingAnswer }, 409: NOT_EDITABLE },
    }),
    jsonBody(ColumnMappingBody),
    async (c) => {
      const id = batchId(c);
      audit(c, { op: 'column_mapping', batch_id: id });
      const batch = await saveColumnMapping({ ctx, actor: c.get('actor'), batchId: id, refs: c.var.body.column_mapping, replace: c.var.body.replace });
      return c.json(presentColumnMapping(batch));
    },
  );

  app.get(
    '/:id/preview',
    describeRoute({
      summary: 'Previzualizarea rândurilor, cu stare și rows_hash',
      query: PreviewQuery,
      responses: {
        200: {
          schema: PreviewAnswer,
          description:
            'O pagină de rânduri și totalurile; cât timp status este „staging”, doar din rândurile încărcate până acum (rows_staged), iar pentru „failed” niciun rând și error',
        },
      },
    }),
    // A page of more than LARGE_PAGE rows is costly work of the account, as a list's (http/cost-budget.ts), and so is any page of heavy rows.
    costly(ctx, { isCostly: async (c) => Number(c.req.query('page_size')) > LARGE_PAGE || (await hasHeavyRows(ctx.db, c.get('actor').accountId, batchId(c))) }),
    async (c) => {
      const id = batchId(c);
      const query = parseQuery(c, PreviewQuery);
      if (!query.ok) return query.response;
      return c.json(presentPreview(await previewImportBatch({ ctx, actor: c.get('actor'), batchId: id, query: query.data })));
    },
  );

  app.post(
    '/:id/rand/:i/editeaza',
    describeRoute({
      summary: 'Corectează câmpuri ale unui rând',
      body: RowEditBody,
      responses: { 200: { description: 'Rândul reclasificat', schema: RowChangeAnswer }, 409: NOT_EDITABLE },
    }),
    jsonBody(RowEditBody),
    async (c) => {
      const [id, i] = [batchId(c), rowIndex(c)];
      const change = await editImportRow({ ctx, actor: c.get('actor'), batchId: id, rowIndex: i, edits: c.var.body, requestId: c.get('requestId') });
      return c.json(presentRowChange(change));
    },
  );

  app.post(
    '/:id/rand/:i/revizuire',
    describeRoute({
      summary: 'Include sau exclude un rând de revizuit',
      body: RowReviewBody,
      responses: { 200: { description: 'Rândul', schema: RowChangeAnswer }, 409: NOT_EDITABLE },
    }),
    jsonBody(RowReviewBody),
    async (c) => {
      const [id, i] = [batchId(c), rowIndex(c)];
      const change = await setRowReview({ ctx, actor: c.get('actor'), batchId: id, rowIndex: i, include: c.var.body.include, requestId: c.get('requestId') });
      return c.json(presentRowChange(change));
    },
  );

  app.post(
    '/:id/rand/:i/deoparte',
    describeRoute({
      summary: 'Lasă deoparte un rând (sau îl include din nou)',
      body: RowLeftOutBody,
      responses: { 200: { description: 'Rândul', schema: RowChangeAnswer }, 409: NOT_EDITABLE },
    }),
    jsonBody(RowLeftOutBody),
    async (c) => {
      const [id, i] = [batchId(c), rowIndex(c)];
      const change = await setRowLeftOut({ ctx, actor: c.get('actor'), batchId: id, rowIndex: i, leftOut: c.var.body.deoparte, requestId: c.get('requestId') });
      return c.json(presentRowChange(change));
    },
  );

  app.post(
    '/:id/commit',
    describeRoute({
      summary: 'Confirmă importul: rândurile gata devin prezentări',
      body: CommitBody,
      responses: {
        200: { description: 'Rezultatul confirmării', schema: CommitAnswer },
        409: 'Confirmat deja, încă în curs de încărcare (IMPORT_IN_CURS) sau eșuat (IMPORT_ESUAT), ori număr/rows_hash care nu mai corespund',
      },
    }),
    jsonBody(CommitBody),
    async (c) => {
      const actor = c.get('actor');
      const result = await commitImportBatch({
        ctx,
        actor,
        batchId: batchId(c),
        input: c.var.body,
        confirmedBy: actorLabel(actor),
        requestId: c.get('requestId'),
      });
      audit(c, { op: 'commit', batch_id: result.batchId, inserted: result.inserted });
      return c.json(presentCommit(result));
    },
  );

  app.get(
    '/:id/export-failed',
    describeRoute({
      summary: 'Rândurile netrimise, cu motivul: CSV (implicit) sau xlsx (format=xlsx)',
      query: ExportFailedQuery,
      responses: {
        200: { description: 'Fișierul CSV sau xlsx', contentType: 'text/csv' },
        409: 'Importul este încă în curs de încărcare (IMPORT_IN_CURS) sau a eșuat (IMPORT_ESUAT)',
      },
    }),
    costly(ctx, { streamed: true }),
    async (c) => {
      const q = parseQuery(c, ExportFailedQuery);
      if (!q.ok) return q.response;
      const file = await exportFailedRows({ ctx, actor: c.get('actor'), batchId: batchId(c), format: q.data.format });
      return streamDownload(c, ctx.journal, file);
    },
  );

  return app;
}
