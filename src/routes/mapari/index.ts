import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { MappingInput } from '../../domain/mapping-input';
import { costly } from '../../http/cost-budget';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { deleteMapping, listMappings, listNomenclator, pendingOperations, saveMapping } from '../../services/operations/mappings';
import { presentMapping, presentNomenclatorEntry, presentPending } from './present';
import { listOf, MappingSaved, MappingView, NomenclatorEntryView, PendingView, Removed } from './schemas';

export function nomenclatorRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get(
    '/',
    describeRoute({
      summary: 'Nomenclatorul global al registrului',
      responses: { 200: { description: 'Codurile registrului', schema: listOf(NomenclatorEntryView) } },
    }),
    async (c) => c.json({ items: (await listNomenclator(ctx)).map(presentNomenclatorEntry) }),
  );
}

export function mapariRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.get(
    '/',
    describeRoute({
      summary: 'Mapările contului',
      responses: { 200: { description: 'Mapările', schema: listOf(MappingView) } },
    }),
    async (c) => c.json({ items: (await listMappings({ ctx, actor: c.get('actor') })).map(presentMapping) }),
  );
  app.get(
    '/pending',
    describeRoute({
      summary: 'Coduri nemapate, cu sugestie preselectată',
      responses: { 200: { description: 'Codurile nemapate', schema: listOf(PendingView) } },
    }),
    async (c) => c.json({ items: (await pendingOperations({ ctx, actor: c.get('actor') })).map(presentPending) }),
  );
  app.post(
    '/',
    describeRoute({
      summary: 'Salvează o mapare și reclasifică trimiterile blocate',
      body: MappingInput,
      responses: { 200: { description: 'Maparea salvată', schema: MappingSaved }, 400: 'Codul nu există în nomenclator' },
    }),
    // It re-classifies the account's held rows: costly work (http/cost-budget.ts).
    costly(ctx),
    jsonBody(MappingInput),
    async (c) => {
      const { mapping, reResolution } = await saveMapping({
        ctx,
        actor: c.get('actor'),
        input: c.var.body,
        requestId: c.get('requestId'),
      });
      const saved: MappingSaved = {
        mapare: { cod_op_service: mapping.codOpService, cod_prestatie: mapping.codPrestatie, auto_send: mapping.autoSend },
        reclasificate: reResolution,
      };
      return c.json(saved);
    },
  );
  app.delete('/:code', describeRoute({ summary: 'Șterge o mapare', responses: { 200: { description: 'Ștearsă', schema: Removed } } }), async (c) => {
    await deleteMapping({ ctx, actor: c.get('actor'), code: c.req.param('code'), requestId: c.get('requestId') });
    return c.json({ deleted: true } satisfies Removed);
  });
  return app;
}
