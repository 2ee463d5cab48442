import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  h = await startWorkerHarness();
  app = createApp(h.app);
});
afterAll(() => h.close());

describe('/healthz and /metrics from what the worker records', () => {
  it('before any worker: not alive, no registry login', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'degradat', worker_alive: false, last_registry_login: null, registry_available: false });
  });

  it('after a delivery and a refusal: alive, logged in, sent/error counters, latency and queue depth', async () => {
    const accountId = await h.createAccount('Metrics');
    await h.start();
    const ok = await h.submit(accountId, { vin: 'WDB1234561A500001' });
    await h.waitForStatus(ok.id, 'sent');
    h.sim.state.setFaults({ send: { status: 400, times: 1, mesaj: 'nu' } });
    const bad = await h.submit(accountId, { vin: 'WDB1234561A500002' });
    await h.waitForStatus(bad.id, 'error');
    await h.app.sql`INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie, next_attempt_at)
                    VALUES (${accountId}, 'queued', '{}'::jsonb, 'metrics-waiting', 'X', 'X', '2025-03-14', now() + interval '1 hour')`;

    const health = await (await app.request('/healthz')).json();
    expect(health).toMatchObject({ worker_alive: true, registry_available: true, queue_size: 1, sending: 0 });

    const text = await (await app.request('/metrics')).text();
    expect(text).toMatch(/gateway_worker_sent_total\{outcome="sent"\} 1\b/);
    expect(text).toMatch(/gateway_worker_errors_total\{cod="REG_CONTINUT_RESPINS"\} 1\b/);
    expect(text).toMatch(/gateway_worker_attempts_total\{outcome="rejected"\} 1\b/);
    expect(text).toMatch(/gateway_registry_latency_seconds\{quantile="0.5"\} [\d.e-]+/);
    expect(text).toMatch(/gateway_submissions_by_status\{status="sent"\} 1\b/);
    expect(text).toMatch(/gateway_submissions_by_status\{status="queued"\} 1\b/);
    // The queued row waits for its backoff: not due.
    expect(text).toMatch(/gateway_queue_due\{measure="count"\} 0\b/);
    expect(text).toMatch(/gateway_workers_alive 1\b/);
  });
});
