import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { generateApiKey } from '../../src/crypto/hash';
import { saveRegCredentials } from '../../src/services/accounts/reg-creds';
import type { WorkerContext } from '../../worker/context';
import type { RunningWorker } from '../../worker/runner';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

// A real registry locks an account after a few failed logins: the worker makes at most one
// per account and credentials, however many submissions wait, and one new login when the
// registry refuses the token on a data call.

let h: WorkerHarness;
let worker: RunningWorker | undefined;
let workerCtx: (WorkerContext & { close: () => Promise<void> }) | undefined;
let n = 0;

/** A worker of its own context; the one before is closed, so the restarts do not exhaust the database's connections. */
async function startWorker() {
  await stopWorker();
  workerCtx = h.workerContext();
  worker = await h.start(workerCtx);
  return worker;
}
async function stopWorker() {
  await worker?.stop();
  await workerCtx?.close();
  worker = undefined;
  workerCtx = undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const vin = () => `WDB1234561A${String(500_000 + n++).padStart(6, '0')}`;
const counters = () => h.sim.state.counters;

beforeAll(async () => {
  h = await startWorkerHarness();
});
afterEach(async () => {
  await stopWorker();
  h.sim.state.reset(true);
});
afterAll(() => h.close());

/** `count` submissions of the account without credentials of their own, queued while no worker runs. */
async function waiting(accountId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const s = await h.submit(accountId, { vin: vin(), reg_credentials: null });
    expect(s.status).toBe('queued');
    ids.push(s.id);
  }
  return ids;
}

async function allReach(ids: number[], status: string, timeoutMs = 15_000) {
  return Promise.all(ids.map((id) => h.waitForStatus(id, status, timeoutMs)));
}

describe('a refused password', () => {
  it('twenty waiting submissions make one failed login; after the fix, one login and all sent', async () => {
    const accountId = await h.createAccount('Parolă greșită', { username: 'alt', password: 'gresit' });
    const ids = await waiting(accountId, 20);
    await startWorker();

    const refused = await allReach(ids, 'error');
    for (const row of refused) expect(row.reg_error).toMatchObject({ cod: 'REG_LOGIN_RESPINS' });
    expect(counters().failedLogins).toBe(1);
    // The one that asked carries the registry's answer; the others say they were not tried.
    const withStatus = refused.filter((r) => r.reg_error?.http_status === 401);
    expect(withStatus).toHaveLength(1);
    const untried = refused.find((r) => r.reg_error?.http_status !== 401)!;
    expect(String(untried.reg_error!.cauza)).toContain('nu s-a mai încercat');

    // A submission arriving later meets the same refused credentials: no new login.
    const [late] = await waiting(accountId, 1);
    await h.waitForStatus(late!, 'error');
    await sleep(1_200);
    expect(counters()).toMatchObject({ failedLogins: 1, logins: 0 });
    expect(h.sim.state.records).toHaveLength(0);

    // The dashboard's fix: new credentials, the refused submissions requeued in the same step.
    const actor = { kind: 'user' as const, accountId, userId: 1, admin: false };
    const { requeued } = await saveRegCredentials({ ctx: h.app, actor, creds: { username: 'alt', password: 'secret' }, requestId: 'req-fix', requeueLoginRefused: true });
    expect(requeued).toBe(21);
    await allReach([...ids, late!], 'sent');
    expect(counters()).toMatchObject({ failedLogins: 1, logins: 1 });
    expect(h.sim.state.records).toHaveLength(21);
    expect(h.sim.state.duplicates()).toBe(0);
  });

  it('the same credentials requeued without a change are not tried again; a submission with credentials of its own tries them once', async () => {
    const accountId = await h.createAccount('Repus fără schimbare', { username: 'alt', password: 'gresit' });
    const ids = await waiting(accountId, 3);
    await startWorker();
    await allReach(ids, 'error');
    expect(counters().failedLogins).toBe(1);

    // Requeued by hand, credentials unchanged: refused again at once, without a login.
    await h.app.sql`UPDATE submissions SET status = 'queued', purge_after = NULL, attempts = 0 WHERE id = ${ids[0]!}`;
    await waitFor(async () => ((await h.attempts(ids[0]!)).length === 2 ? true : undefined), 5_000, 'the second attempt');
    await h.waitForStatus(ids[0]!, 'error');
    expect(counters().failedLogins).toBe(1);

    // Other credentials, carried by the request: tried once, and they work.
    const own = await h.submit(accountId, { vin: vin(), reg_credentials: { username: 'alt', password: 'secret' } });
    await h.waitForStatus(own.id, 'sent');
    expect(counters()).toMatchObject({ failedLogins: 1, logins: 1 });
  });
});

describe('POST /v1/conturi/reg-creds', () => {
  it('requeues the submissions refused for credentials in the same step, as the dashboard does', async () => {
    const accountId = await h.createAccount('API', { username: 'third', password: 'gresit' });
    const ids = await waiting(accountId, 5);
    await startWorker();
    await allReach(ids, 'error');
    expect(counters().failedLogins).toBe(1);

    const key = generateApiKey();
    await h.app.sql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${accountId}, ${key.hash}, ${key.prefix})`;
    const res = await createApp(h.app).request('/v1/conturi/reg-creds', {
      method: 'POST',
      headers: { 'X-API-Key': key.plain, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'third', password: 'pw3' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ are_creds_rar: true, repuse_in_coada: 5 });
    await allReach(ids, 'sent');
    expect(counters()).toMatchObject({ failedLogins: 1, logins: 1 });
    await h.app.journal.flush();
    const [requeued] = await h.app.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM app_events WHERE account_id = ${accountId} AND event = 'submission_requeued' AND request_id IS NOT NULL`;
    expect(requeued?.n).toBe(5);
  });
});

describe('an expired token', () => {
  it('many waiting submissions of the account cause exactly one new login', async () => {
    const accountId = await h.createAccount('Token expirat', { username: 'demo', password: 'demo' });
    await startWorker();
    const [first] = await waiting(accountId, 1);
    await h.waitForStatus(first!, 'sent');
    expect(counters().logins).toBe(1);
    await stopWorker();

    // The stored session outlives the worker; the registry no longer takes its token.
    const ids = await waiting(accountId, 20);
    h.sim.state.expireTokens();
    await startWorker();
    await allReach(ids, 'sent');
    expect(counters()).toMatchObject({ logins: 2, failedLogins: 0 });
    expect(counters().refusedTokens).toBeGreaterThan(0);
    expect(h.sim.state.duplicates()).toBe(0);
  });

  it('expired, and the new login refused (the password changed at the registry): one failed login for them all', async () => {
    const accountId = await h.createAccount('Parolă schimbată', { username: 'third', password: 'pw3' });
    await startWorker();
    const [first] = await waiting(accountId, 1);
    await h.waitForStatus(first!, 'sent');
    await stopWorker();

    const ids = await waiting(accountId, 12);
    h.sim.state.users.set('third', 'parola-noua');
    h.sim.state.expireTokens();
    try {
      await startWorker();
      const rows = await allReach(ids, 'error');
      for (const row of rows) expect(row.reg_error).toMatchObject({ cod: 'REG_LOGIN_RESPINS' });
      expect(counters()).toMatchObject({ logins: 1, failedLogins: 1 });
    } finally {
      h.sim.state.users.set('third', 'pw3');
    }
  });

  it('refused in the middle of a stream, with every registry slot busy: one new login', async () => {
    const accountId = await h.createAccount('Token expirat din mers', { username: 'alt', password: 'secret' });
    h.sim.state.setFaults({ latencyMs: 40 });
    await startWorker();
    const ids = await waiting(accountId, 40);
    await waitFor(() => (h.sim.state.records.length >= 8 ? true : undefined), 10_000, 'the first sends');
    h.sim.state.expireTokens();
    await allReach(ids, 'sent', 30_000);
    expect(counters().refusedTokens).toBeGreaterThan(0);
    expect(counters()).toMatchObject({ logins: 2, failedLogins: 0 });
    expect(h.sim.state.records).toHaveLength(40);
  });
});

describe('an account without any credentials', () => {
  it('its waiting submissions are not claimed one by one: the few claimed put the rest off with them; saved credentials wake them all', async () => {
    const accountId = await h.createAccount('Fără credențiale');
    const ids = await waiting(accountId, 30);
    await startWorker();
    const tried = async () => {
      const [row] = await h.app.sql<{ n: number }[]>`SELECT count(DISTINCT submission_id)::int AS n FROM submission_attempts WHERE submission_id IN ${h.app.sql(ids)}`;
      return row!.n;
    };
    await waitFor(async () => ((await tried()) > 0 ? true : undefined), 5_000, 'the first credentials wait');
    // Two rounds of the one-second credentials backoff.
    await sleep(2_500);
    // At most one claim's worth (2 × GATEWAY_WORKER_CONCURRENCY rows of an account) was ever claimed.
    expect(await tried()).toBeLessThanOrEqual(8);
    const rows = await Promise.all(ids.map((id) => h.row(id)));
    for (const row of rows) {
      expect(row.status).toBe('queued');
      expect(row.reg_error).toMatchObject({ cod: 'REG_CREDENTIALE_LIPSA' });
      expect(row.attempts).toBe(0);
    }
    expect(counters().logins + counters().failedLogins).toBe(0);

    await saveRegCredentials({ ctx: h.app, actor: { kind: 'dev', accountId }, creds: { username: 'demo', password: 'demo' }, requestId: 'req-creds' });
    await allReach(ids, 'sent', 5_000);
    expect(counters()).toMatchObject({ logins: 1, failedLogins: 0 });
  });

  it('a login with credentials a later request carries wakes the ones put off', async () => {
    const accountId = await h.createAccount('Fără credențiale, apoi o cerere cu ele');
    const ids = await waiting(accountId, 20);
    await startWorker();
    await waitFor(
      async () => ((await Promise.all(ids.map((id) => h.row(id)))).every((r) => r.reg_error?.cod === 'REG_CREDENTIALE_LIPSA') ? true : undefined),
      5_000,
      'all to wait for credentials',
    );
    const carrier = await h.submit(accountId, { vin: vin(), reg_credentials: { username: 'third', password: 'pw3' } });
    await allReach([carrier.id, ...ids], 'sent', 5_000);
    expect(counters()).toMatchObject({ logins: 1, failedLogins: 0 });
  });
});
