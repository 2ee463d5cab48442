import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killIfRunning, spawnWorker, type WorkerProcess } from '../helpers/worker-process';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

// Real worker processes (node --import tsx worker/main.ts) against one database and the
// simulated registry running in this test process.

let h: WorkerHarness;
let accountId: number;
const spawned: WorkerProcess[] = [];

const start = async (id: string, env: Record<string, string> = {}) => {
  const p = await spawnWorker(h, id, env);
  spawned.push(p);
  return p;
};

beforeAll(async () => {
  h = await startWorkerHarness();
  accountId = await h.createAccount('Processes', { username: 'demo', password: 'demo' });
});
afterEach(async () => {
  for (const p of spawned.splice(0)) await killIfRunning(p);
  h.sim.state.reset();
});
afterAll(() => h.close());

describe('two worker processes on one database', () => {
  it('deliver every submission exactly once; the registry sees at most GATEWAY_WORKER_CONCURRENCY calls per account from both', async () => {
    const accounts = [accountId, await h.createAccount('P2', { username: 'alt', password: 'secret' }), await h.createAccount('P3', { username: 'third', password: 'pw3' })];
    // The registry holds the first sends open until each account has three of them at once:
    // that the limit is used is then seen however slowly a loaded machine submits. The time-out
    // outlasts the hold, so that no held send is in doubt.
    h.sim.state.setFaults({ latencyMs: 15, holdSends: true });
    const env = { GATEWAY_WORKER_CONCURRENCY: '3', GATEWAY_REGISTRY_TIMEOUT_MS: '20000' };
    await Promise.all([start('w-one', env), start('w-two', env)]);
    let maxPerAccount = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [r] = await h.app.sql<{ m: number | null }[]>`
          SELECT max(n)::int AS m FROM (SELECT count(*) AS n FROM submissions WHERE status = 'sending' GROUP BY coalesce(account_id, 1)) x`;
        maxPerAccount = Math.max(maxPerAccount, r?.m ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const ids: number[] = [];
    const submit = async (i: number) => ids.push((await h.submit(accounts[i % 3]!, { vin: `WDB1234561B${String(i).padStart(6, '0')}`, reg_credentials: null })).id);
    for (let i = 0; i < 12; i++) await submit(i);
    const threeEach = () => h.sim.state.sendsInFlight.size === 3 && [...h.sim.state.sendsInFlight.values()].every((n) => n === 3);
    await waitFor(() => threeEach() || undefined, 10_000, 'three sends of each account held at once');
    h.sim.state.setFaults({ holdSends: false });
    h.sim.release();
    for (let i = 12; i < 150; i++) await submit(i);
    await waitFor(
      async () => {
        const [r] = await h.app.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE status = 'sent' AND id = ANY(${ids})`;
        return r!.n === ids.length || undefined;
      },
      30_000,
      'all 150 submissions to be sent',
    );
    sampling = false;
    await sampler;

    expect(h.sim.state.records.filter((r) => r.record.vin.startsWith('WDB1234561B'))).toHaveLength(150);
    expect(h.sim.state.duplicates()).toBe(0);
    const perWorker = await h.app.sql<{ worker_id: string; n: number }[]>`
      SELECT worker_id, count(*)::int AS n FROM submission_attempts WHERE submission_id = ANY(${ids}) GROUP BY worker_id ORDER BY worker_id`;
    expect(perWorker.map((r) => r.worker_id)).toEqual(['w-one', 'w-two']);
    const [attempts] = await h.app.sql<{ n: number; sent: number }[]>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE outcome = 'sent')::int AS sent FROM submission_attempts WHERE submission_id = ANY(${ids})`;
    expect(attempts).toEqual({ n: 150, sent: 150 });
    // Rows `sending` per account, across both processes: at most 2 × the limit (claimed ahead).
    expect(maxPerAccount).toBeGreaterThan(0);
    expect(maxPerAccount).toBeLessThanOrEqual(6);
    // Calls the registry saw at once per account, both processes together: the limit itself
    // (one worker sends an account at a time, worker/claim.ts), and it was used.
    for (const n of h.sim.state.maxConcurrentSends.values()) expect(n).toBeLessThanOrEqual(3);
    expect(Math.max(...h.sim.state.maxConcurrentSends.values())).toBe(3);
  });
});

describe('crash and restart', () => {
  it('SIGKILL while the registry holds a send open: after a restart the registry holds the record once and it is sent', async () => {
    const env = { GATEWAY_SENDING_STALE_S: '3', GATEWAY_REGISTRY_TIMEOUT_MS: '2000' };
    h.sim.state.setFaults({ holdSends: true });
    const first = await start('w-killed', env);
    const s = await h.submit(accountId, { vin: 'WDB1234561C000001' });
    await waitFor(() => h.sim.state.records.some((r) => r.record.vin === 'WDB1234561C000001') || undefined, 10_000, 'the held send');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect((await h.row(s.id)).status).toBe('sending');

    // The answer the dead worker never heard; the registry keeps answering normally now.
    h.sim.state.reset();
    h.sim.release();
    await start('w-restarted', env);
    const row = await h.waitForStatus(s.id, 'sent', 15_000);
    const stored = h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561C000001');
    expect(stored).toHaveLength(1);
    expect(row.registry_id).toBe(String(stored[0]!.id));
    expect((await h.attempts(s.id)).map((a) => [a.worker_id, a.outcome])).toEqual([
      ['w-killed', 'in_doubt'],
      ['w-restarted', 'reconciled'],
    ]);
  });
});

describe('SIGTERM', () => {
  it('an idle worker exits 0 at once', async () => {
    const p = await start('w-idle');
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('finishes a send in flight within the bound, stops claiming, exits 0', async () => {
    h.sim.state.setFaults({ sendDelayMs: 700 });
    const p = await start('w-finish', { GATEWAY_WORKER_SHUTDOWN_S: '5' });
    const s = await h.submit(accountId, { vin: 'WDB1234561C000002' });
    await h.waitForStatus(s.id, 'sending');
    p.child.kill('SIGTERM');
    // Only once the worker has seen the signal: from then on nothing new may be claimed.
    await waitFor(() => p.output().includes('SIGTERM: stopping') || undefined, 5_000, 'the worker to see SIGTERM');
    const later = await h.submit(accountId, { vin: 'WDB1234561C000003' });
    expect((await p.exited).code, p.output()).toBe(0);
    expect((await h.row(s.id)).status, JSON.stringify(await h.attempts(s.id))).toBe('sent');
    expect((await h.row(later.id)).status, JSON.stringify(await h.attempts(later.id))).toBe('queued');
    await h.app.sql`DELETE FROM submissions WHERE id = ${later.id}`;
  });

  it('releases a send still held open at the bound: back to queued, then reconciled by the next worker, exit 0', async () => {
    h.sim.state.setFaults({ holdSends: true });
    const p = await start('w-release', { GATEWAY_WORKER_SHUTDOWN_S: '1', GATEWAY_REGISTRY_TIMEOUT_MS: '20000', GATEWAY_SENDING_STALE_S: '60' });
    const s = await h.submit(accountId, { vin: 'WDB1234561C000004' });
    await waitFor(() => h.sim.state.records.some((r) => r.record.vin === 'WDB1234561C000004') || undefined, 10_000, 'the held send');
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const row = await h.row(s.id);
    expect(row.status).toBe('queued');
    expect((await h.attempts(s.id)).map((a) => a.outcome)).toEqual(['in_doubt']);

    h.sim.state.reset();
    h.sim.release();
    await start('w-next');
    await h.waitForStatus(s.id, 'sent');
    expect(h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561C000004')).toHaveLength(1);
  });
});
