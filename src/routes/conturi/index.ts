import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { environmentName } from '../../config';
import { RegCredentials } from '../../domain/submission-input';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { describeRoute } from '../../openapi';
import { clearRegCredentials, hasRegCredentials, saveRegCredentials } from '../../services/accounts/reg-creds';

/** The answer of both reg-creds operations: whether the account now has durable credentials. */
export const RegCredsState = z.object({ are_creds_rar: z.boolean() });
export type RegCredsState = z.infer<typeof RegCredsState>;

/** The answer of the save: besides, how many submissions refused at login it put back in the queue. */
export const RegCredsSaved = RegCredsState.extend({ repuse_in_coada: z.number().int().min(0) });
export type RegCredsSaved = z.infer<typeof RegCredsSaved>;

/** GET /v1/ping. */
export const PingAnswer = z.object({
  account_id: z.number().int(),
  mediu: z.enum(['sandbox', 'productie']),
  autentificat_cu_cheie: z.boolean(),
  are_creds_rar: z.boolean(),
  ts: z.iso.datetime(),
});
export type PingAnswer = z.infer<typeof PingAnswer>;

export function conturiRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();
  app.post(
    '/reg-creds',
    describeRoute({
      summary: 'Salvează credențialele durabile ale registrului (criptate)',
      description:
        'Trimiterile care așteptau credențiale pornesc imediat, iar cele refuzate la autentificare (REG_LOGIN_RESPINS) sunt repuse în coadă în același pas, ca la salvarea din panou; `repuse_in_coada` spune câte.',
      body: RegCredentials,
      responses: { 200: { description: 'Salvate', schema: RegCredsSaved } },
    }),
    jsonBody(RegCredentials),
    async (c) => {
      // As the dashboard's save with its box checked (the default): new credentials and the retry of what the old ones lost, in one step.
      const { requeued } = await saveRegCredentials({ ctx, actor: c.get('actor'), creds: c.var.body, requestId: c.get('requestId'), requeueLoginRefused: true });
      return c.json({ are_creds_rar: true, repuse_in_coada: requeued } satisfies RegCredsSaved);
    },
  );
  app.delete(
    '/reg-creds',
    describeRoute({
      summary: 'Șterge credențialele durabile',
      responses: { 200: { description: 'Șterse', schema: RegCredsState } },
    }),
    async (c) => {
      await clearRegCredentials({ ctx, actor: c.get('actor'), requestId: c.get('requestId') });
      return c.json({ are_creds_rar: false } satisfies RegCredsState);
    },
  );
  return app;
}

export function pingRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get(
    '/',
    describeRoute({ summary: 'Verifică cheia și mediul', responses: { 200: { description: 'Contul cheii și mediul', schema: PingAnswer } } }),
    async (c) => {
      const actor = c.get('actor');
      const answer: PingAnswer = {
        account_id: actor.accountId,
        mediu: environmentName(ctx.config),
        autentificat_cu_cheie: actor.kind === 'key',
        are_creds_rar: await hasRegCredentials({ ctx, actor }),
        ts: ctx.clock().toISOString(),
      };
      return c.json(answer);
    },
  );
}
