import { Hono } from 'hono';
import type { AppContext } from '../../context';
import type { RefuseBody } from '../../http/body-refusals';
import { isFormFile } from '../../http/multipart';
import { uploadCost } from '../../http/cost-budget';
import { admitUploadFirst } from '../../http/upload-admission';
import { journalActor } from '../../journal/actor';
import { queueUpload } from '../../services/import';
import { readUploadForm } from '../../services/import';
import type { WebEnv } from '../env';
import { readForm, refuseForm } from '../form';
import { errorNotice } from '../notice';

/**
 * The browser's upload: the same admission and service (queueUpload) as POST /v1/import, and
 * the API's catalog words as a notice in place (the form's target) for a file refused at once
 * (no spreadsheet, empty, password-protected); the rest of what a file may hold is told on its
 * screen once a stager has read it. The session and its token (X-CSRF-Token only: security.ts) are checked first;
 * then the place and the account's share of costly work (429 / 503 with Retry-After; a refused
 * body is dropped as the API drops one); only then is the body read, up to the API's upload
 * limit. A file taken opens its batch's screen.
 */
export function uploadRoutes(ctx: AppContext, refuseBody: RefuseBody) {
  const app = new Hono<WebEnv>();

  app.post('/_import/incarca', admitUploadFirst<WebEnv>(ctx, errorNotice), uploadCost<WebEnv>(ctx, errorNotice), async (c) => {
    const actor = c.get('actor');
    const refused = await refuseForm(c, refuseBody);
    if (refused) return refused;
    const fields = await readForm(c);
    const parts = Object.entries(fields).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => (isFormFile(v) ? v : { name, value: v })));
    const read = readUploadForm(parts, 'foaie');
    if (!read.ok) return errorNotice(c, 'FORMULAR_INVALID', read.problem.message);
    const batch = await queueUpload({ ctx, actor, ...read.upload, requestId: c.get('requestId'), admission: c.get('upload')! });
    ctx.journal.write({
      event: 'web_import',
      requestId: c.get('requestId'),
      accountId: actor.accountId,
      data: { op: 'upload', batch_id: batch.id, status: batch.status, rows: batch.rowCount, kind: batch.fileMeta.kind, size: read.upload.bytes.length, ...journalActor(actor) },
    });
    const screen = `/import/${batch.id}`;
    if (!c.req.header('hx-request')) return c.redirect(screen, 303);
    // A whole page: the batch's screen is its own address, and Back returns to the upload.
    c.header('HX-Redirect', screen);
    return c.body(null, 200);
  });

  return app;
}
