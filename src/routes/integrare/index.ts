import { Hono } from 'hono';
import { publicBaseUrl } from '../../config';
import type { AppContext } from '../../context';
import type { AppEnv } from '../../http/env';
import { postmanCollection } from '../../clients/postman';
import { describeRoute } from '../../openapi';

export const COLLECTION_PATH = '/v1/integrare/postman-collection.json';

/**
 * The Postman collection. Mounted before the API key check: it holds nothing but the public
 * address and a placeholder key (as /openapi.json does), and Postman's "Import → Link" fetches
 * it without headers.
 */
export function integrareRoutes(ctx: AppContext) {
  const body = JSON.stringify(postmanCollection(publicBaseUrl(ctx.config)), null, 2);
  return new Hono<AppEnv>().get(
    COLLECTION_PATH,
    describeRoute({
      summary: 'Colecția Postman (format v2.1.0): ping, dry run, trimitere, cu variabilele baseUrl și apiKey',
      public: true,
      responses: { 200: { description: 'Colecția', contentType: 'application/json' } },
    }),
    (c) =>
      c.body(body, 200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': 'attachment; filename="gateway-prezentari.postman_collection.json"',
        'X-Content-Type-Options': 'nosniff',
      }),
  );
}
