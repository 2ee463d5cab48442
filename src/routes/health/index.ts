import { timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { AppContext } from '../../context';
import { fromThisMachine } from '../../http/client-address';
import { REGISTRY_TOKEN_TTL_S } from '../../domain/registry-token';
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../../http/database-down';
import { errorResponse } from '../../http/envelope';
import type { AppEnv } from '../../http/env';
import { WORKER_ALIVE_S } from '../../metrics';
import { z } from 'zod';
import { describeRoute } from '../../openapi';

/**
 * GET /healthz, in both its statuses. Anyone gets the first three fields (what a load
 * balancer's check needs); the rest, which tell about the deployment's traffic and hosts, only
 * an operator (operatorAccess).
 */
export const HealthAnswer = z.object({
  status: z.enum(['ok', 'degradat']),
  database: z.boolean(),
  worker_alive: z.boolean(),
  last_registry_login: z.iso.datetime().nullable().optional(),
  queue_size: z.number().int().optional(),
  sending: z.number().int().optional(),
  registry_available: z.boolean().optional(),
  /** Every worker of the deployment seen in the last hour, newest heartbeat first. */
  workers: z.array(z.object({ id: z.string(), alive: z.boolean(), last_heartbeat: z.iso.datetime() })).optional(),
});
export type HealthAnswer = z.infer<typeof HealthAnswer>;

/**
 * An operator's request: made on this machine directly (not through a proxy), or carrying
 * `Authorization: Bearer` GATEWAY_METRICS_TOKEN. Only such a request reads /metrics and the
 * details of /healthz: counts across every account, registry logins, worker hosts and PIDs.
 */
export function operatorAccess(c: Context, ctx: Pick<AppContext, 'config'>): boolean {
  if (fromThisMachine(c, ctx.config)) return true;
  const expected = ctx.config.GATEWAY_METRICS_TOKEN;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
  if (!expected || !given) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What an anonymous caller of /healthz is told. */
const publicPart = ({ status, database, worker_alive }: HealthAnswer): HealthAnswer => ({ status, database, worker_alive });

export function healthRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();

  app.get(
    '/healthz',
    describeRoute({
      summary: 'Starea serviciului: baza de date, worker-ii întregii instalări, coada',
      description:
        'Oricine primește status, database și worker_alive. Restul câmpurilor (coada, autentificările la registru, worker-ii) numai o cerere făcută pe mașina gateway-ului, direct, sau cu `Authorization: Bearer` GATEWAY_METRICS_TOKEN.',
      responses: {
        200: { description: 'Totul funcționează', schema: HealthAnswer },
        503: {
          description: 'Degradat: niciun worker viu în toată instalarea, sau baza de date indisponibilă (database: false, cu Retry-After); aceleași câmpuri',
          schema: HealthAnswer,
        },
      },
    }),
    async (c) => {
      try {
        const { body, status } = await answer();
        return c.json(operatorAccess(c, ctx) ? body : publicPart(body), status);
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        // The load balancer's check sees the database down; the answer keeps its shape.
        c.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
        const body: HealthAnswer = {
          status: 'degradat',
          database: false,
          worker_alive: false,
          last_registry_login: null,
          queue_size: 0,
          sending: 0,
          registry_available: false,
          workers: [],
        };
        return c.json(operatorAccess(c, ctx) ? body : publicPart(body), 503);
      }
    },
  );

  async function answer(): Promise<{ body: HealthAnswer; status: 200 | 503 }> {
    const [row] = await ctx.sql<{ worker_alive: boolean; last_registry_login: Date | null; queue_size: number; sending: number; registry_available: boolean }[]>`
      SELECT
        EXISTS (SELECT 1 FROM worker_state WHERE heartbeat_at > now() - make_interval(secs => ${WORKER_ALIVE_S})) AS worker_alive,
        (SELECT max(last_registry_login) FROM worker_state) AS last_registry_login,
        (SELECT count(*)::int FROM submissions WHERE status = 'queued') AS queue_size,
        (SELECT count(*)::int FROM submissions WHERE status = 'sending') AS sending,
        -- The spec's availability indicator: a registry login within the token's life.
        coalesce((SELECT max(last_registry_login) > now() - make_interval(secs => ${REGISTRY_TOKEN_TTL_S}) FROM worker_state), false) AS registry_available`;
    // Every worker of the deployment seen in the last hour, whichever server started it.
    const workers = await ctx.sql<{ worker_id: string; heartbeat_at: string; alive: boolean }[]>`
        SELECT worker_id, heartbeat_at, heartbeat_at > now() - make_interval(secs => ${WORKER_ALIVE_S}) AS alive
        FROM worker_state WHERE heartbeat_at > now() - interval '1 hour' ORDER BY heartbeat_at DESC LIMIT 20`;
    const workerAlive = row?.worker_alive ?? false;
    // A monitor sees a gateway whose submissions are not being delivered as unhealthy.
    return {
      body: {
        status: workerAlive ? 'ok' : 'degradat',
        database: true,
        worker_alive: workerAlive,
        last_registry_login: row?.last_registry_login ? new Date(row.last_registry_login).toISOString() : null,
        queue_size: row?.queue_size ?? 0,
        sending: row?.sending ?? 0,
        registry_available: row?.registry_available ?? false,
        workers: workers.map((w) => ({ id: w.worker_id, alive: w.alive, last_heartbeat: new Date(w.heartbeat_at).toISOString() })),
      },
      status: workerAlive ? 200 : 503,
    };
  }

  app.get(
    '/metrics',
    describeRoute({
      summary: 'Metrici Prometheus',
      description: 'Numai o cerere făcută pe mașina gateway-ului, direct, sau cu `Authorization: Bearer` GATEWAY_METRICS_TOKEN.',
      responses: {
        200: { description: 'Metricile, în formatul text Prometheus', contentType: 'text/plain' },
        401: 'Cerere din afara mașinii, fără GATEWAY_METRICS_TOKEN',
      },
    }),
    async (c) => {
      if (!operatorAccess(c, ctx)) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        return errorResponse(c, 'NEAUTENTIFICAT', 'Metricile se citesc de pe mașina gateway-ului sau cu Authorization: Bearer GATEWAY_METRICS_TOKEN.');
      }
      c.header('Content-Type', ctx.metrics.registry.contentType);
      return c.body(await ctx.metrics.registry.metrics());
    },
  );

  return app;
}
