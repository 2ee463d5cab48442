import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountAlerts } from '../../src/services/accounts/alerts';
import { saveRegCredentials } from '../../src/services/accounts/reg-creds';
import { createSubmission } from '../../src/services/submissions/create';
import type { RunningWorker } from '../../worker/runner';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let worker: RunningWorker;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const outcomes = async (id: number) => (await h.attempts(id)).map((a) => a.outcome);

beforeAll(async () => {
  // A long wait for credentials, so a hot loop would show as extra attempts.
  h = await startWorkerHarness({ GATEWAY_WORKER_CREDS_RETRY_S: '60' });
  worker = await h.start();
});
afterEach(() => h.sim.state.reset());
afterAll(() => h.close());

describe('credentials', () => {
  it('with neither ephemeral nor durable credentials → back to queued with REG_CREDENTIALE_LIPSA and a backoff, no hot loop', async () => {
    const accountId = await h.createAccount('No creds');
    const s = await h.submit(accountId, { vin: 'WDB1234561A300001', reg_credentials: null });
    await waitFor(async () => (await outcomes(s.id)).includes('no_credentials') || undefined, 5_000, 'the credentials wait');
    await sleep(1_500);
    const row = await h.row(s.id);
    expect(row.status).toBe('queued');
    expect(row.reg_error).toMatchObject({ cod: 'REG_CREDENTIALE_LIPSA' });
    expect(row.motiv).toContain('credențiale');
    expect(row.next_attempt_at!.getTime() - Date.now()).toBeGreaterThan(40_000);
    // Waiting for credentials is not a delivery attempt.
    expect(row.attempts).toBe(0);
    expect(await outcomes(s.id)).toEqual(['no_credentials']);
    expect(h.sim.state.counters.logins + h.sim.state.counters.failedLogins).toBe(0);
  });

  it('saving the account’s durable credentials wakes its waiting submissions at once', async () => {
    const accountId = await h.createAccount('Creds later');
    const s = await h.submit(accountId, { vin: 'WDB1234561A300002', reg_credentials: null });
    await waitFor(async () => (await outcomes(s.id)).includes('no_credentials') || undefined, 5_000, 'the credentials wait');
    const saved = Date.now();
    await saveRegCredentials({ ctx: h.app, actor: { kind: 'dev', accountId }, creds: { username: 'alt', password: 'secret' }, requestId: 'req-creds' });
    await h.waitForStatus(s.id, 'sent', 5_000);
    expect(Date.now() - saved).toBeLessThan(3_000);
    expect(await outcomes(s.id)).toEqual(['no_credentials', 'sent']);
    expect(h.sim.state.records.find((r) => r.record.vin === 'WDB1234561A300002')!.username).toBe('alt');
    const [acct] = await h.app.sql<{ reg_creds_enc: string | null }[]>`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(acct!.reg_creds_enc).not.toBeNull();
  });

  it('a cached session needs no credentials, after a restart too (the session is shared through the database); a new epoch needs them again', async () => {
    const accountId = await h.createAccount('Session only');
    const a = await h.submit(accountId, { vin: 'WDB1234561A300003' });
    await h.waitForStatus(a.id, 'sent');
    const b = await h.submit(accountId, { vin: 'WDB1234561A300004', reg_credentials: null });
    await h.waitForStatus(b.id, 'sent');
    const loginsBefore = h.sim.state.counters.logins;

    await worker.stop();
    worker = await h.start();
    const c = await h.submit(accountId, { vin: 'WDB1234561A300005', reg_credentials: null });
    await h.waitForStatus(c.id, 'sent');
    // Sent with the session the first worker made: no new login.
    expect(h.sim.state.counters.logins).toBe(loginsBefore);

    // A new epoch (here: the account's credentials cleared) retires the shared session.
    await h.app.sql`UPDATE accounts SET session_epoch = session_epoch + 1 WHERE id = ${accountId}`;
    const d = await h.submit(accountId, { vin: 'WDB1234561A300006', reg_credentials: null });
    await waitFor(async () => (await outcomes(d.id)).includes('no_credentials') || undefined, 5_000, 'the credentials wait');
    expect((await h.row(d.id)).status).toBe('queued');
  });

  it('a login erases the account’s ephemeral credentials before any outcome under it is recorded', async () => {
    const accountId = await h.createAccount('Erased first');
    // Another submission of the account holding credentials of its own, never claimed (needs_data).
    const held = await h.submit(accountId, { vin: 'WDB1234561A30002O' });
    expect(held.status).toBe('needs_data');
    expect((await h.row(held.id)).reg_creds_enc).not.toBeNull();
    // Its row is locked elsewhere, so the erasure after the login waits.
    const other = await h.app.sql.reserve();
    try {
      await other`BEGIN`;
      await other`SELECT id FROM submissions WHERE id = ${held.id} FOR UPDATE`;
      const s = await h.submit(accountId, { vin: 'WDB1234561A300021' });
      await waitFor(() => h.sim.state.records.find((r) => r.record.vin === 'WDB1234561A300021'), 5_000, 'the registry to hold the record');
      await sleep(300);
      expect((await h.row(s.id)).status).toBe('sending');
      await other`COMMIT`;
      await h.waitForStatus(s.id, 'sent');
    } finally {
      other.release();
    }
    expect((await h.row(held.id)).reg_creds_enc).toBeNull();
  });

  it('credentials that no longer decrypt count as absent: the account’s are used instead', async () => {
    const accountId = await h.createAccount('Bad ephemeral', { username: 'alt', password: 'secret' });
    // Held first (an O in the VIN: needs_data is never claimed), then queued in the same
    // statement that plants the unreadable credentials, so the worker cannot see it before.
    const s = await h.submit(accountId, { vin: 'WDB1234561A30000O' });
    expect(s.status).toBe('needs_data');
    // Simulates a value written under a master key that is gone.
    await h.app.sql`
      UPDATE submissions SET status = 'queued', vin = 'WDB1234561A300006', erori = '[]', motiv = NULL, purge_after = NULL,
        payload_json = jsonb_set(payload_json, '{vin}', '"WDB1234561A300006"'), reg_creds_enc = 'v1.00000000.AAAA.AAAA.AAAA'
      WHERE id = ${s.id}`;
    await h.waitForStatus(s.id, 'sent');
    expect(h.sim.state.records.find((r) => r.record.vin === 'WDB1234561A300006')!.username).toBe('alt');
    const events = await h.events(s.id);
    expect(events.map((e) => e.event)).toContain('worker_creds_unreadable');
  });
});

describe('session cache and reactivation', () => {
  it('a duplicate of an error submission reactivates it; the session epoch moves and the worker logs in again with the new credentials', async () => {
    const accountId = await h.createAccount('Reactivation');
    const warm = await h.submit(accountId, { vin: 'WDB1234561A300010' });
    await h.waitForStatus(warm.id, 'sent');

    h.sim.state.setFaults({ send: { status: 500, times: 1 } });
    const failed = await h.submit(accountId, { vin: 'WDB1234561A300011', odometruFinal: 5555 });
    await h.waitForStatus(failed.id, 'error');
    const logins = h.sim.state.counters.logins;

    const again = await createSubmission({
      ctx: h.app,
      actor: { kind: 'dev', accountId },
      input: { ...failed.input, reg_credentials: { username: 'alt', password: 'secret' } },
      requestId: 'req-reactivate',
    });
    expect(again).toMatchObject({ id: failed.id, reactivated: true, status: 'queued' });
    const row = await h.waitForStatus(failed.id, 'sent');
    expect(row.reg_error).toBeNull();
    expect(h.sim.state.counters.logins).toBe(logins + 1);
    expect(h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561A300011').map((r) => r.username)).toEqual(['alt']);
  });

  it('a mistyped password: every waiting send fails at login, the banner names it; new credentials requeue them in one step and the next login clears it', async () => {
    const accountId = await h.createAccount('Typo', { username: 'alt', password: 'gresit' });
    const sent = [];
    for (const vin of ['WDB1234561A300021', 'WDB1234561A300022', 'WDB1234561A300023']) sent.push(await h.submit(accountId, { vin, reg_credentials: null }));
    for (const s of sent) await h.waitForStatus(s.id, 'error', 5_000);
    // The refused login is the worker's journal row, written with its next flush.
    const refused = await waitFor(
      async () => {
        const alerts = await accountAlerts({ ctx: h.app, actor: { kind: 'dev', accountId } });
        return alerts.loginRefused ? alerts : undefined;
      },
      5_000,
      'the refused login in the journal',
    );
    expect(refused.refusedAtLogin).toBe(3);
    expect(refused.loginRefused?.cauza).toContain('HTTP 401');

    const actor = { kind: 'user' as const, accountId, userId: 1, admin: false };
    const { requeued } = await saveRegCredentials({ ctx: h.app, actor, creds: { username: 'alt', password: 'secret' }, requestId: 'req-fix', requeueLoginRefused: true });
    expect(requeued).toBe(3);
    for (const s of sent) await h.waitForStatus(s.id, 'sent', 5_000);
    await waitFor(async () => (await accountAlerts({ ctx: h.app, actor: { kind: 'dev', accountId } })).refusedAtLogin === 0 || undefined, 5_000, 'no refused submission left');
    expect(await accountAlerts({ ctx: h.app, actor: { kind: 'dev', accountId } })).toMatchObject({ refusedAtLogin: 0, loginRefused: null });
  });
});
