import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { TextRuleInput } from '../../domain/mapping-input';
import { presentTextRule } from '../mapari/present';
import { costly } from '../../http/cost-budget';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { listOf, Removed, TextRuleSaved, TextRuleView } from '../mapari/schemas';
import { deleteTextRule, listTextRules, saveTextRule } from '../../services/operations/text-rules';
import { INT4_MAX, idParam } from '../params';

const presentSaved = ({ rule, reResolution }: Awaited<ReturnType<typeof saveTextRule>>): TextRuleSaved => ({ regula: presentTextRule(rule), reclasificate: reResolution });

export function reguliTextRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    describeRoute({
      summary: 'Regulile text ale contului',
      responses: { 200: { description: 'Regulile', schema: listOf(TextRuleView) } },
    }),
    async (c) => c.json({ items: (await listTextRules({ ctx, actor: c.get('actor') })).map(presentTextRule) }),
  );
  app.post(
    '/',
    describeRoute({
      summary: 'Adaugă o regulă text',
      body: TextRuleInput,
      responses: { 201: { description: 'Regula creată', schema: TextRuleSaved }, 400: 'Codul nu există în nomenclator' },
    }),
    // A saved rule re-classifies the account's held rows: costly work (http/cost-budget.ts).
    costly(ctx),
    jsonBody(TextRuleInput),
    async (c) => c.json(presentSaved(await saveTextRule({ ctx, actor: c.get('actor'), input: c.var.body, requestId: c.get('requestId') })), 201),
  );
  app.put(
    '/:id',
    describeRoute({
      summary: 'Înlocuiește o regulă text',
      body: TextRuleInput,
      responses: { 200: { description: 'Regula înlocuită', schema: TextRuleSaved }, 400: 'Codul nu există în nomenclator' },
    }),
    costly(ctx),
    jsonBody(TextRuleInput),
    async (c) => {
      const id = idParam(c.req.param('id'), INT4_MAX);
      return c.json(presentSaved(await saveTextRule({ ctx, actor: c.get('actor'), input: c.var.body, id, requestId: c.get('requestId') })));
    },
  );
  app.delete('/:id', describeRoute({ summary: 'Șterge o regulă text', responses: { 200: { description: 'Ștearsă', schema: Removed } } }), async (c) => {
    const id = idParam(c.req.param('id'), INT4_MAX);
    await deleteTextRule({ ctx, actor: c.get('actor'), id, requestId: c.get('requestId') });
    return c.json({ deleted: true } satisfies Removed);
  });
  return app;
}
