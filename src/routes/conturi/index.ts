import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { environmentName } from '../../config';
import { RegCredentials } from '../../domain/submission-input';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { clearRegCredentials, hasRegCredentials, saveRegCredentials } from '../../services/accounts/reg-creds';

export function conturiRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.post(
    '/reg-creds',
    describeRoute({
      summary: 'Salvează credențialele durabile ale registrului (criptate)',
      body: RegCredentials,
      responses: { 200: 'Salvate' },
    }),
    jsonBody(RegCredentials),
    async (c) => {
      await saveRegCredentials({ ctx, actor: c.get('actor'), creds: c.var.body, requestId: c.get('requestId') });
      return c.json({ are_creds_rar: true });
    },
  );
  app.delete(
    '/reg-creds',
    describeRoute({
      summary: 'Șterge credențialele durabile',
      responses: { 200: 'Șterse' },
    }),
    async (c) => {
      await clearRegCredentials({ ctx, actor: c.get('actor'), requestId: c.get('requestId') });
      return c.json({ are_creds_rar: false });
    },
  );
  return app;
}

export function pingRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get('/', describeRoute({ summary: 'Verifică cheia și mediul', responses: { 200: 'Contul cheii și mediul' } }), async (c) => {
    const actor = c.get('actor');
    return c.json({
      account_id: actor.accountId,
      mediu: environmentName(ctx.config),
      autentificat_cu_cheie: actor.kind === 'key',
      are_creds_rar: await hasRegCredentials(ctx, actor.accountId),
      ts: ctx.clock().toISOString(),
    });
  });
}
