import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sql } from '../db/client';

export type Metrics = ReturnType<typeof createMetrics>;

/** A worker whose heartbeat is older than this is not alive (/healthz and /metrics). */
export const WORKER_ALIVE_S = 30;

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
  registerDeliveryMetrics(registry, sql);
  return { registry, httpRequests, httpDuration, submissionsCreated };
}

/**
 * The worker's figures. The worker is another process (or several), so they are read from
 * what it records in the database at scrape time, not kept in this process's memory: the
 * attempt history gives the sent/error counters and the registry latency. Counts shrink
 * only when the purge deletes old rows, which Prometheus reads as a counter reset.
 */
function registerDeliveryMetrics(registry: Registry, sql: Sql) {
  countsFromDatabase(registry, {
    name: 'gateway_worker_sent_total',
    help: 'Submissions that reached sent (delivered, or found by reconciliation)',
    label: 'outcome',
    read: () => sql`SELECT outcome AS label, count(*)::int AS n FROM submission_attempts WHERE result_status = 'sent' GROUP BY outcome`,
  });
  countsFromDatabase(registry, {
    name: 'gateway_worker_errors_total',
    help: 'Submissions the worker moved to error, by reg_error code',
    label: 'cod',
    read: () => sql`SELECT coalesce(error_code, 'REG_EROARE') AS label, count(*)::int AS n FROM submission_attempts WHERE result_status = 'error' GROUP BY 1`,
  });
  countsFromDatabase(registry, {
    name: 'gateway_worker_attempts_total',
    help: 'Delivery attempts by outcome (retries, waits for credentials and expired tokens included)',
    label: 'outcome',
    read: () => sql`SELECT outcome AS label, count(*)::int AS n FROM submission_attempts WHERE outcome IS NOT NULL GROUP BY outcome`,
  });
  new Gauge({
    name: 'gateway_registry_latency_seconds',
    help: 'Registry call latency over the attempts of the last 5 minutes (quantiles)',
    labelNames: ['quantile'] as const,
    registers: [registry],
    async collect() {
      const [row] = await sql<{ p50: number | null; p90: number | null; p99: number | null }[]>`
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
               percentile_cont(0.9) WITHIN GROUP (ORDER BY latency_ms) AS p90,
               percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
        FROM submission_attempts WHERE ended_at > now() - interval '5 minutes' AND latency_ms IS NOT NULL`;
      this.reset();
      for (const [quantile, value] of [
        ['0.5', row?.p50],
        ['0.9', row?.p90],
        ['0.99', row?.p99],
      ] as const) {
        if (value !== null && value !== undefined) this.set({ quantile }, Number(value) / 1000);
      }
    },
  });
  new Gauge({
    name: 'gateway_queue_due',
    help: 'Queued submissions due now, and the age in seconds of the oldest one',
    labelNames: ['measure'] as const,
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: number; age: number | null }[]>`
        SELECT count(*)::int AS n, extract(epoch FROM now() - min(created_at))::float8 AS age FROM submissions
        WHERE status = 'queued' AND (next_attempt_at IS NULL OR next_attempt_at <= now())`;
      this.set({ measure: 'count' }, row?.n ?? 0);
      this.set({ measure: 'oldest_age_seconds' }, row?.age ?? 0);
    },
  });
  new Gauge({
    name: 'gateway_workers_alive',
    help: `Worker processes with a heartbeat in the last ${WORKER_ALIVE_S} seconds`,
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM worker_state WHERE heartbeat_at > now() - make_interval(secs => ${WORKER_ALIVE_S})`;
      this.set(row?.n ?? 0);
    },
  });
}

/** A counter whose values are counts per label read from the database at scrape time. */
function countsFromDatabase(registry: Registry, options: { name: string; help: string; label: string; read: () => Promise<ReadonlyArray<{ label: string; n: number }>> }) {
  new Counter({
    name: options.name,
    help: options.help,
    labelNames: [options.label],
    registers: [registry],
    async collect() {
      const rows = await options.read();
      this.reset();
      for (const r of rows) this.inc({ [options.label]: r.label }, r.n);
    },
  });
}
