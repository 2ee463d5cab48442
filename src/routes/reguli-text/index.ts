import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { deleteTextRule, listTextRules, saveTextRule } from '../../services/operations/text-rules';
import { INT4_MAX, idParam } from '../params';

export const TextRuleInput = z.object({
  pattern: z.string().trim().min(2, 'Textul căutat trebuie să aibă cel puțin 2 caractere').max(200),
  cod_prestatie: z.string().trim().min(1).max(64),
  priority: z.number().int().min(0).max(100_000).optional(),
});
export type TextRuleInput = z.infer<typeof TextRuleInput>;

export function reguliTextRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    describeRoute({
      summary: 'Regulile text ale contului',
      responses: { 200: 'Regulile' },
    }),
    async (c) => c.json(await listTextRules({ ctx, accountId: c.get('actor').accountId })),
  );
  app.post(
    '/',
    describeRoute({
      summary: 'Adaugă o regulă text',
      body: TextRuleInput,
      responses: { 201: 'Regula creată', 400: 'Codul nu există în nomenclator' },
    }),
    jsonBody(TextRuleInput),
    async (c) => c.json(await saveTextRule({ ctx, accountId: c.get('actor').accountId, input: c.var.body, requestId: c.get('requestId') }), 201),
  );
  app.put(
    '/:id',
    describeRoute({
      summary: 'Înlocuiește o regulă text',
      body: TextRuleInput,
      responses: { 200: 'Regula înlocuită', 400: 'Codul nu există în nomenclator' },
    }),
    jsonBody(TextRuleInput),
    async (c) => {
      const id = idParam(c.req.param('id'), INT4_MAX);
      return c.json(await saveTextRule({ ctx, accountId: c.get('actor').accountId, input: c.var.body, id, requestId: c.get('requestId') }));
    },
  );
  app.delete('/:id', describeRoute({ summary: 'Șterge o regulă text', responses: { 200: 'Ștearsă' } }), async (c) => {
    const id = idParam(c.req.param('id'), INT4_MAX);
    return c.json(await deleteTextRule({ ctx, accountId: c.get('actor').accountId, id, requestId: c.get('requestId') }));
  });
  return app;
}
