import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { costly } from '../../http/cost-budget';
import { streamDownload } from '../../http/download';
import type { AppEnv } from '../../http/env';
import { IsoDateParam, validQuery } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { exportSubmissionsCsv } from '../../services/audit/export';

export const ExportQuery = z.object({
  status: z.enum(['sent', 'all']).default('sent'),
  date_from: IsoDateParam.optional(),
  date_to: IsoDateParam.optional(),
});

export function auditRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get(
    '/export',
    describeRoute({
      summary: 'Export CSV (fără imagine)',
      query: ExportQuery,
      responses: { 200: { description: 'Fișierul CSV', contentType: 'text/csv' } },
    }),
    validQuery(ExportQuery),
    costly(ctx, { streamed: true }),
    async (c) => {
      const q = c.req.valid('query');
      const accountId = c.get('actor').accountId;
      ctx.journal.write({ event: 'audit_export', requestId: c.get('requestId'), accountId, data: { ...q } });
      return streamDownload(c, ctx.journal, {
        contentType: 'text/csv; charset=utf-8',
        filename: `prezentari-${q.status}.csv`,
        async produce(write) {
          for await (const chunk of exportSubmissionsCsv({ ctx, actor: c.get('actor'), filters: q })) await write(chunk);
        },
      });
    },
  );
}
