import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let accountId: number;

beforeAll(async () => {
  h = await startWorkerHarness();
  accountId = await h.createAccount('Delivery', { username: 'alt', password: 'secret' });
  h.sim.state.nomenclator.push({ cod: 'OE-X', denumire: 'COD NOU DIN REGISTRU' });
  await h.start();
});
afterAll(() => h.close());

describe('queued → sent', () => {
  it('delivers a queued submission once, with the registry id, 90-day retention and an attempt row', async () => {
    const s = await h.submit(accountId, { vin: 'WDB1234561A000001', odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] });
    expect(s.status).toBe('queued');
    const row = await h.waitForStatus(s.id, 'sent');
    const stored = h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561A000001');
    expect(stored).toHaveLength(1);
    expect(row.registry_id).toBe(String(stored[0]!.id));
    expect(row.reg_error).toBeNull();
    const days = (row.purge_after!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);
    const attempts = await h.attempts(s.id);
    expect(attempts).toEqual([expect.objectContaining({ attempt_no: 1, outcome: 'sent', http_status: 201, registry_id: row.registry_id })]);
    expect(attempts[0]!.ended_at).not.toBeNull();
  });

  it('sends the record with the registry field names, FINALIZATA and no tipPrestatie, logged in with the submission’s own credentials', async () => {
    const s = await h.submit(accountId, {
      vin: 'WDB1234561A000002',
      nrInm: 'cj12abc',
      odometruInitial: '1000.0',
      odometruFinal: 2000,
      prestatii: [{ cod_prestatie: 'R-ODO' }, { cod_prestatie: 'OE-1' }],
      b64Image: 'aGVsbG8=',
    });
    await h.waitForStatus(s.id, 'sent');
    const stored = h.sim.state.records.find((r) => r.record.vin === 'WDB1234561A000002')!;
    // The submission carried demo:demo; the account's own are alt:secret: the submission's win.
    expect(stored.username).toBe('demo');
    expect(stored.record).toEqual({
      vin: 'WDB1234561A000002',
      nrInmatriculare: 'CJ12ABC',
      dataPrestatie: '2025-03-14',
      odometruInitial: 1000,
      odometruFinal: 2000,
      obs: '',
      prestatii: [
        { codPrestatie: 'R-ODO', numePrestatie: 'REPARAȚIE ODOMETRU', idPrezentare: null },
        { codPrestatie: 'OE-1', numePrestatie: 'REPARAȚIE', idPrezentare: null },
      ],
      sistemReparat: null,
      status: 'FINALIZATA',
      b64Image: 'aGVsbG8=',
    });
    expect(stored.record).not.toHaveProperty('tipPrestatie');
    expect(h.sim.state.counters.refusedWithoutUserAgent).toBe(0);
    expect([...h.sim.state.userAgents]).toEqual([h.config.GATEWAY_REGISTRY_USER_AGENT]);
  });

  it('deletes ephemeral credentials of every submission of the account after a login, never the account’s', async () => {
    const [acct] = await h.app.sql<{ reg_creds_enc: string | null }[]>`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(acct!.reg_creds_enc).not.toBeNull();
    const [left] = await h.app.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM submissions WHERE account_id = ${accountId} AND reg_creds_enc IS NOT NULL`;
    expect(left!.n).toBe(0);
  });

  it('journals every move and the login with the submission’s request id, without secrets or full VINs', async () => {
    const s = await h.submit(accountId, { vin: 'WDB1234561A000003' }, 'req-journal-1');
    await h.waitForStatus(s.id, 'sent');
    const events = await h.events(s.id);
    expect(events.map((e) => e.event)).toEqual(['worker_claimed', 'worker_sent']);
    for (const e of events) expect(e.request_id).toBe('req-journal-1');
    expect(events[1]!.data).toMatchObject({ from: 'sending', to: 'sent', outcome: 'sent' });
    const all = await h.app.sql<{ event: string; data: unknown }[]>`SELECT event, data FROM app_events`;
    const text = JSON.stringify(all);
    expect(all.some((e) => e.event === 'rar_login')).toBe(true);
    expect(text).not.toContain('secret');
    expect(text).not.toMatch(/"password"\s*:\s*"demo"/);
    expect(text).not.toContain('WDB1234561A000003');
    for (const token of h.sim.state.tokens.keys()) expect(text).not.toContain(token);
  });

  it('refreshes the nomenclator at the first login: upserts the registry’s codes and keeps the 18 fallback ones', async () => {
    const rows = await waitFor(
      async () => {
        const r = await h.app.sql<{ cod: string; source: string }[]>`SELECT cod, source FROM nomenclator`;
        return r.some((x) => x.cod === 'OE-X') ? r : undefined;
      },
      5_000,
      'the refreshed nomenclator',
    );
    for (const { cod } of FALLBACK_NOMENCLATOR) expect(rows.map((r) => r.cod)).toContain(cod);
    expect(rows.find((r) => r.cod === 'OE-X')!.source).toBe('registry');
    expect(rows.length).toBe(FALLBACK_NOMENCLATOR.length + 1);
  });

  it('first logins of several accounts at once share one nomenclator refresh', async () => {
    const accounts = await Promise.all(['First A', 'First B', 'First C'].map((name) => h.createAccount(name)));
    // Slow enough that the three logins end while the first refresh still runs.
    h.sim.state.setFaults({ latencyMs: 300 });
    const calls = h.sim.state.counters.nomenclatorCalls;
    const logins = h.sim.state.counters.logins;
    try {
      const sent = await Promise.all(accounts.map((id, i) => h.submit(id, { vin: `WDB1234561A00020${i}` })));
      for (const s of sent) await h.waitForStatus(s.id, 'sent');
    } finally {
      h.sim.state.setFaults({ latencyMs: 0 });
    }
    expect(h.sim.state.counters.logins - logins).toBe(3);
    expect(h.sim.state.counters.nomenclatorCalls - calls).toBe(1);
  });

  it('logs in once per account and reuses the session for later sends', async () => {
    const before = h.sim.state.counters.logins;
    const ids = await Promise.all([1, 2, 3, 4, 5].map((i) => h.submit(accountId, { vin: `WDB1234561A00010${i}` })));
    for (const s of ids) await h.waitForStatus(s.id, 'sent');
    expect(h.sim.state.counters.logins).toBe(before);
    const [state] = await h.app.sql<{ n: number; last: Date | null }[]>`SELECT count(*)::int AS n, max(last_registry_login) AS last FROM worker_state`;
    expect(state!.n).toBe(1);
    expect(state!.last).not.toBeNull();
  });

  it('calls the registry at most GATEWAY_WORKER_CONCURRENCY (4) at once per account, and does use them', async () => {
    const other = await h.createAccount('Concurrency', { username: 'third', password: 'pw3' });
    h.sim.state.setFaults({ latencyMs: 40 });
    const ids = [];
    for (let i = 0; i < 24; i++) ids.push(await h.submit(other, { vin: `WDB1234561A2${String(i).padStart(5, '0')}`, reg_credentials: null }));
    for (const s of ids) await h.waitForStatus(s.id, 'sent');
    h.sim.state.reset();
    expect(h.sim.state.maxConcurrentSends.get('third')).toBe(4);
  });
});
