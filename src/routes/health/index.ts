import { type Context, Hono } from 'hono';
import type { AppContext } from '../../context';
import { REGISTRY_TOKEN_TTL_S } from '../../domain/registry-token';
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../../http/database-down';
import type { AppEnv } from '../../http/env';
import { WORKER_ALIVE_S } from '../../metrics';
import { z } from 'zod';
import { describeRoute } from '../../openapi';

/** GET /healthz, in both its statuses. */
export const HealthAnswer = z.object({
  status: z.enum(['ok', 'degradat']),
  database: z.boolean(),
  worker_alive: z.boolean(),
  last_registry_login: z.iso.datetime().nullable(),
  queue_size: z.number().int(),
  sending: z.number().int(),
  registry_available: z.boolean(),
  /** Every worker of the deployment seen in the last hour, newest heartbeat first. */
  workers: z.array(z.object({ id: z.string(), alive: z.boolean(), last_heartbeat: z.iso.datetime() })),
});
export type HealthAnswer = z.infer<typeof HealthAnswer>;

export function healthRoutes(ctx: AppContext) {
  const app = new Hono<AppEnv>();

  app.get(
    '/healthz',
    describeRoute({
      summary: 'Starea serviciului: baza de date, worker-ii întregii instalări, coada',
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
        return await answer(c);
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        // The load balancer's check sees the database down; the answer keeps its shape.
        c.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
        return c.json(
          {
            status: 'degradat' as const,
            database: false,
            worker_alive: false,
            last_registry_login: null,
            queue_size: 0,
            sending: 0,
            registry_available: false,
            workers: [],
          } satisfies HealthAnswer,
          503,
        );
      }
    },
  );

  async function answer(c: Context<AppEnv>) {
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
    return c.json(
      {
        status: workerAlive ? ('ok' as const) : ('degradat' as const),
        database: true,
        worker_alive: workerAlive,
        last_registry_login: row?.last_registry_login ? new Date(row.last_registry_login).toISOString() : null,
        queue_size: row?.queue_size ?? 0,
        sending: row?.sending ?? 0,
        registry_available: row?.registry_available ?? false,
        workers: workers.map((w) => ({ id: w.worker_id, alive: w.alive, last_heartbeat: new Date(w.heartbeat_at).toISOString() })),
      } satisfies HealthAnswer,
      workerAlive ? 200 : 503,
    );
  }

  app.get(
    '/metrics',
    describeRoute({
      summary: 'Metrici Prometheus',
      responses: { 200: { description: 'Metricile, în formatul text Prometheus', contentType: 'text/plain' } },
    }),
    async (c) => {
      c.header('Content-Type', ctx.metrics.registry.contentType);
      return c.body(await ctx.metrics.registry.metrics());
    },
  );

  return app;
}
