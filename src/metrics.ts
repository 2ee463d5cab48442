import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sql } from '../db/client';

export type Metrics = ReturnType<typeof createMetrics>;

/** The server's Prometheus metrics; queue depth is read from the database at scrape time. */
export function createMetrics(sql: Sql) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const submissionsCreated = new Counter({
    name: 'gateway_submissions_created_total',
    help: 'Submissions classified by POST /v1/prezentari, by verdict',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_submissions_by_status',
    help: 'Submissions in the database by status (queue depth)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM submissions GROUP BY status`;
      this.reset();
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new Gauge({
    name: 'gateway_registry_sent_total',
    help: 'Submissions delivered to the registry (sent), as recorded by the worker',
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE status = 'sent'`;
      this.set(row?.n ?? 0);
    },
  });
  return { registry, httpRequests, httpDuration, submissionsCreated };
}
