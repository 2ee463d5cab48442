import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let accountId: number;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const recordsOf = (vin: string) => h.sim.state.records.filter((r) => r.record.vin === vin);

beforeAll(async () => {
  h = await startWorkerHarness();
  accountId = await h.createAccount('Failures');
  await h.start();
});
afterEach(() => h.sim.state.reset());
afterAll(() => h.close());

describe('registry refusals: error, no retry', () => {
  it('login 401 (wrong credentials) → error REG_LOGIN_RESPINS, one attempt, never retried', async () => {
    const s = await h.submit(accountId, { vin: 'WDB1234561A100001', reg_credentials: { username: 'demo', password: 'wrong' } });
    const row = await h.waitForStatus(s.id, 'error');
    expect(row.reg_error).toMatchObject({ cod: 'REG_LOGIN_RESPINS', http_status: 401, mesaj_registru: 'Utilizator sau parolă greșită' });
    expect(row.reg_error).toHaveProperty('problema');
    expect(row.reg_error).toHaveProperty('fix');
    expect(String(row.reg_error!.cauza)).toContain('401');
    await sleep(1_500);
    expect((await h.row(s.id)).status).toBe('error');
    expect(await h.attempts(s.id)).toEqual([expect.objectContaining({ outcome: 'login_rejected', http_status: 401, error_code: 'REG_LOGIN_RESPINS' })]);
    expect(recordsOf('WDB1234561A100001')).toHaveLength(0);
    const events = await h.events(s.id);
    expect(events.at(-1)).toMatchObject({ event: 'worker_error', request_id: s.requestId });
  });

  it('login 5xx → error REG_EROARE_SERVER, no retry', async () => {
    h.sim.state.setFaults({ login: { status: 503, times: 1 } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A100002', reg_credentials: { username: 'alt', password: 'secret' } });
    const row = await h.waitForStatus(s.id, 'error');
    expect(row.reg_error).toMatchObject({ cod: 'REG_EROARE_SERVER', http_status: 503 });
    await sleep(1_200);
    expect(await h.attempts(s.id)).toHaveLength(1);
  });

  it('send 5xx → error REG_EROARE_SERVER, never sent, no retry', async () => {
    h.sim.state.setFaults({ send: { status: 500, times: null, mesaj: 'baza de date indisponibilă' } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A100003' });
    const row = await h.waitForStatus(s.id, 'error');
    expect(row.reg_error).toMatchObject({ cod: 'REG_EROARE_SERVER', http_status: 500, mesaj_registru: 'baza de date indisponibilă' });
    expect(row.registry_id).toBeNull();
    await sleep(1_200);
    expect((await h.row(s.id)).status).toBe('error');
    expect(await h.attempts(s.id)).toEqual([expect.objectContaining({ outcome: 'registry_error', http_status: 500 })]);
    expect(recordsOf('WDB1234561A100003')).toHaveLength(0);
  });

  it('send 400 → error REG_CONTINUT_RESPINS with the registry’s reason, kept 30 days', async () => {
    h.sim.state.setFaults({ send: { status: 400, times: 1, cod: 'VIN_NECUNOSCUT', mesaj: 'VIN-ul nu figurează în evidență' } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A100004' });
    const row = await h.waitForStatus(s.id, 'error');
    expect(row.reg_error).toMatchObject({
      cod: 'REG_CONTINUT_RESPINS',
      cauza: 'VIN_NECUNOSCUT: VIN-ul nu figurează în evidență',
      mesaj_registru: 'VIN-ul nu figurează în evidență',
      http_status: 400,
    });
    expect(row.motiv).toContain('VIN-ul nu figurează');
    const days = (row.purge_after!.getTime() - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    await sleep(1_200);
    expect(await h.attempts(s.id)).toHaveLength(1);
  });

  it('GET /v1/prezentari/{id} shows the three-level reg_error the worker stored', async () => {
    h.sim.state.setFaults({ send: { status: 400, times: 1, cod: 'X', mesaj: 'motivul registrului' } });
    const s = await h.submit(accountId, { vin: 'WDB1234561A100005' });
    await h.waitForStatus(s.id, 'error');
    const { getSubmission } = await import('../../src/services/submissions/read');
    const view = await getSubmission({ ctx: h.app, actor: { kind: 'dev', accountId }, id: s.id });
    expect(view.regError).toMatchObject({ cod: 'REG_CONTINUT_RESPINS', cauza: 'X: motivul registrului', mesaj_registru: 'motivul registrului', http_status: 400 });
  });
});

describe('expired token on a data call', () => {
  it('send 401 → back to queued, session dropped, logged in again and sent once', async () => {
    const first = await h.submit(accountId, { vin: 'WDB1234561A100010' });
    await h.waitForStatus(first.id, 'sent');
    const logins = h.sim.state.counters.logins;
    h.sim.state.expireTokens();
    const s = await h.submit(accountId, { vin: 'WDB1234561A100011' });
    const row = await h.waitForStatus(s.id, 'sent');
    expect(row.reg_error).toBeNull();
    expect((await h.attempts(s.id)).map((a) => [a.outcome, a.http_status])).toEqual([
      ['token_expired', 401],
      ['sent', 201],
    ]);
    expect(recordsOf('WDB1234561A100011')).toHaveLength(1);
    expect(h.sim.state.counters.logins).toBe(logins + 1);
    const events = (await h.events(s.id)).map((e) => e.event);
    expect(events).toEqual(['worker_claimed', 'worker_requeued', 'worker_claimed', 'worker_sent']);
  });
});
