import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let accountId: number;

const recordsOf = (vin: string) => h.sim.state.records.filter((r) => r.record.vin === vin);
const outcomes = async (id: number) => (await h.attempts(id)).map((a) => a.outcome);

beforeAll(async () => {
  // Registry timeout 1.5 s (FAST_WORKER_ENV); three attempts before giving up.
  h = await startWorkerHarness({ GATEWAY_WORKER_MAX_ATTEMPTS: '3' });
  accountId = await h.createAccount('Retry', { username: 'demo', password: 'demo' });
  await h.start();
});
afterEach(() => h.sim.state.reset());
afterAll(() => h.close());

describe('network failures: reconcile first, then retry with backoff', () => {
  it('a timeout after the registry stored the record → reconciled as sent, never sent twice', async () => {
    h.sim.state.setFaults({ sendDelayMs: 2_500 });
    const s = await h.submit(accountId, { vin: 'WDB1234561A200001' });
    await waitFor(async () => (await outcomes(s.id)).includes('in_doubt') || undefined, 8_000, 'the timed-out attempt');
    const queued = await h.row(s.id);
    expect(queued.status).toBe('queued');
    expect(queued.reg_error).toMatchObject({ cod: 'REG_RETEA' });
    expect(queued.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() - 1_000);
    h.sim.state.reset();
    const listBefore = h.sim.state.counters.listCalls;
    const row = await h.waitForStatus(s.id, 'sent');
    expect(await outcomes(s.id)).toEqual(['in_doubt', 'reconciled']);
    expect(recordsOf('WDB1234561A200001')).toHaveLength(1);
    expect(row.registry_id).toBe(String(recordsOf('WDB1234561A200001')[0]!.id));
    expect(h.sim.state.counters.listCalls).toBe(listBefore + 1);
  });

  it('a dropped connection before the registry stored anything → not found when reconciling, sent once', async () => {
    h.sim.state.setFaults({ send: { status: 0, times: 1 } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A200002' });
    await h.waitForStatus(s.id, 'sent');
    expect(await outcomes(s.id)).toEqual(['in_doubt', 'sent']);
    expect(recordsOf('WDB1234561A200002')).toHaveLength(1);
    const attempts = await h.attempts(s.id);
    expect(attempts[0]!.error_code).toBe('REG_RETEA');
  });

  it('waits for the backoff before the next attempt', async () => {
    h.sim.state.setFaults({ send: { status: 0, times: 1 } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A200003' });
    await h.waitForStatus(s.id, 'sent');
    const rows = await h.app.sql<{ started_at: string; ended_at: string }[]>`
      SELECT started_at, ended_at FROM submission_attempts WHERE submission_id = ${s.id} ORDER BY attempt_no`;
    const gap = new Date(rows[1]!.started_at).getTime() - new Date(rows[0]!.ended_at).getTime();
    // Base 1 s with ±20 % jitter.
    expect(gap).toBeGreaterThanOrEqual(750);
  });

  it('gives up after the attempt limit → error REG_RETEA, never marked sent', async () => {
    h.sim.state.setFaults({ send: { status: 0, times: null } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A200004' });
    const row = await h.waitForStatus(s.id, 'error', 15_000);
    expect(row.reg_error).toMatchObject({ cod: 'REG_RETEA' });
    expect(String(row.reg_error!.cauza)).toContain('Renunțat după 3 încercări');
    expect(await outcomes(s.id)).toEqual(['in_doubt', 'in_doubt', 'in_doubt']);
    expect(row.registry_id).toBeNull();
    expect(recordsOf('WDB1234561A200004')).toHaveLength(0);
  });

  it('a network failure at login is retried without reconciling (nothing can have been sent)', async () => {
    const other = await h.createAccount('Retry login', { username: 'alt', password: 'secret' });
    h.sim.state.setFaults({ login: { status: 0, times: 1 } });
    const listBefore = h.sim.state.counters.listCalls;
    const s = await h.submit(other, { vin: 'WDB1234561A200005', reg_credentials: null });
    await h.waitForStatus(s.id, 'sent');
    expect(await outcomes(s.id)).toEqual(['network_error', 'sent']);
    expect(h.sim.state.counters.listCalls).toBe(listBefore);
  });
});
