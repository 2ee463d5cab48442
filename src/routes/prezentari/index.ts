import { SUBMISSION_STATUSES } from '../../domain/statuses';
import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { SubmissionInput } from '../../domain/submission-input';
import { base64Bytes } from '../../domain/validate';
import { costly } from '../../http/cost-budget';
import { errorResponse } from '../../http/envelope';
import { BadRequestError } from '../../errors';
import type { AppEnv } from '../../http/env';
import { IsoDateParam, jsonBody, validQuery } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { Deleted, DryRunResult, Requeued, SubmissionPageView, SubmissionResult, SubmissionView } from './schemas';
import { classifyForAccount } from '../../services/submissions/classify';
import { createSubmission } from '../../services/submissions/create';
import { deleteSubmission, requeueSubmission } from '../../services/submissions/lifecycle';
import { getSubmission, listSubmissionParts } from '../../services/submissions/read';
import { decodeCursor, presentDryRun, presentOutcome, pageJson, presentSubmission } from './present';
import { idParam } from '../params';
import { journalActor } from '../../journal/actor';

/** Pages larger than this count against the account's cost budget. */
export const LARGE_PAGE = 100;

export const ListQuery = z.object({
  status: z.enum(SUBMISSION_STATUSES).optional(),
  date_from: IsoDateParam.optional(),
  date_to: IsoDateParam.optional(),
  vin: z.string().max(17).optional(),
  batch_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(64).optional(),
  account_id: z.coerce.number().int().optional(),
});

export function prezentariRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv & { Variables: { audit?: Record<string, unknown> } }>();

  // Every call of the submission API is audited, shape errors included, after its answer.
  app.use(async (c, next) => {
    await next();
    const detail = c.get('audit') ?? {};
    ctx.journal.write({
      event: 'api_prezentari',
      requestId: c.get('requestId'),
      accountId: c.get('actor').accountId,
      submissionId: typeof detail.submission_id === 'number' ? detail.submission_id : null,
      data: { method: c.req.method, path: c.req.path, http_status: c.res.status, ...detail, ...journalActor(c.get('actor')) },
    });
  });
  const audit = (c: { set(k: 'audit', v: Record<string, unknown>): void }, data: Record<string, unknown>) => c.set('audit', data);

  // A photo past the limit is refused before anything is classified or stored.
  const imageLimit = ctx.config.GATEWAY_MAX_IMAGE_BYTES;
  const checkImage: MiddlewareHandler<{ Variables: { body: SubmissionInput } }> = async (c, next) => {
    const bytes = base64Bytes(c.get('body').b64Image ?? '');
    if (bytes <= imageLimit) return next();
    return errorResponse(c, 'IMAGINE_PREA_MARE', `Imaginea are aproximativ ${bytes} octeți; limita este ${imageLimit} (GATEWAY_MAX_IMAGE_BYTES).`);
  };

  app.post(
    '/',
    describeRoute({
      summary: 'Trimite o prezentare (clasificată, de-duplicată, pusă în coadă)',
      body: SubmissionInput,
      responses: { 200: { description: 'Verdictul și trimiterea', schema: SubmissionResult } },
    }),
    jsonBody(SubmissionInput),
    checkImage,
    async (c) => {
      const result = await createSubmission({ ctx, actor: c.get('actor'), input: c.get('body'), requestId: c.get('requestId') });
      ctx.metrics.submissionsCreated.inc({ status: result.status });
      audit(c, {
        op: 'create',
        submission_id: result.id,
        status: result.status,
        duplicate: result.duplicate,
        reactivated: result.reactivated,
        nemapate: result.nemapate,
      });
      return c.json(presentOutcome(result), 200);
    },
  );

  app.post(
    '/valideaza',
    describeRoute({
      summary: 'Dry run: verdictul fără nicio scriere',
      body: SubmissionInput,
      responses: { 200: { description: 'Verdictul estimat', schema: DryRunResult } },
    }),
    jsonBody(SubmissionInput),
    checkImage,
    async (c) => {
      const verdict = await classifyForAccount({ ctx, actor: c.get('actor'), input: c.get('body') });
      audit(c, { op: 'dry_run', status: verdict.status });
      return c.json(presentDryRun(verdict));
    },
  );

  app.get(
    '/',
    describeRoute({
      summary: 'Lista prezentărilor contului (paginare cu cursor)',
      query: ListQuery,
      responses: { 200: { description: 'O pagină de prezentări', schema: SubmissionPageView }, 400: 'account_id al altui cont sau cursor invalid' },
    }),
    validQuery(ListQuery),
    // A page of more than LARGE_PAGE rows is costly work of the account (http/cost-budget.ts).
    costly(ctx, { isCostly: (c) => Number(c.req.query('limit')) > LARGE_PAGE }),
    async (c) => {
      const q = c.req.valid('query');
      const actor = c.get('actor');
      if (q.account_id !== undefined && q.account_id !== actor.accountId) {
        throw new BadRequestError('account_id nu corespunde contului cheii API.', 'account_id');
      }
      const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      if (q.cursor !== undefined && cursor === undefined) throw new BadRequestError('Cursorul nu este valid.', 'cursor');
      audit(c, { op: 'list' });
      const { status, cursor: _cursor, account_id: _account, ...filters } = q;
      const parts = listSubmissionParts({ ctx, actor, filters: { ...filters, statuses: status ? [status] : undefined, after: cursor } });
      return c.body(await pageJson(parts), 200, { 'Content-Type': 'application/json' });
    },
  );

  app.get(
    '/:id',
    describeRoute({ summary: 'O prezentare (câmpuri permise, inclusiv reg_error)', responses: { 200: { description: 'Prezentarea', schema: SubmissionView } } }),
    async (c) => {
      const id = idParam(c.req.param('id'));
      audit(c, { op: 'get', submission_id: id });
      return c.json(presentSubmission(await getSubmission({ ctx, actor: c.get('actor'), id })));
    },
  );

  app.delete(
    '/:id',
    describeRoute({
      summary: 'Șterge o prezentare (queued, needs_data, needs_mapping, error)',
      responses: { 200: { description: 'Ștearsă', schema: Deleted }, 409: 'Starea nu permite ștergerea' },
    }),
    async (c) => {
      const id = idParam(c.req.param('id'));
      audit(c, { op: 'delete', submission_id: id });
      const { previousStatus } = await deleteSubmission({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
      return c.json({ submission_id: id, deleted: true, previous_status: previousStatus } satisfies Deleted);
    },
  );

  app.post(
    '/:id/repune',
    describeRoute({
      summary: 'Repune în coadă o prezentare blocată (needs_data, needs_mapping, error)',
      responses: { 200: { description: 'Repusă în coadă', schema: Requeued }, 409: 'Starea nu permite repunerea' },
    }),
    async (c) => {
      const id = idParam(c.req.param('id'));
      audit(c, { op: 'requeue', submission_id: id });
      const { previousStatus } = await requeueSubmission({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
      return c.json({ submission_id: id, status: 'queued', previous_status: previousStatus } satisfies Requeued);
    },
  );

  return app;
}
