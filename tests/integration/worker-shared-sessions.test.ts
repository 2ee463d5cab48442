import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../worker/runner';
import { startWorkerHarness, type WorkerHarness } from '../helpers/worker';

// A registry login serves the whole deployment: two workers on one database, and a restart of
// both, log each account in once per token lifetime (worker/shared-sessions.ts). The token is
// kept encrypted, and a new epoch or a refused token retires it for every worker.

let h: WorkerHarness;
const vin = (n: number) => `WDB1234561A${String(400_000 + n).padStart(6, '0')}`;

beforeAll(async () => {
  h = await startWorkerHarness();
});
afterAll(() => h.close());

async function sendAll(accountIds: number[], from: number, perAccount: number) {
  const ids: number[] = [];
  let n = from;
  for (const accountId of accountIds) for (let i = 0; i < perAccount; i++) ids.push((await h.submit(accountId, { vin: vin(n++), reg_credentials: null })).id);
  for (const id of ids) await h.waitForStatus(id, 'sent', 15_000);
  return n;
}

describe('registry sessions shared by the workers', () => {
  it('two workers, then a restart of both: one login per account, the token encrypted at rest', async () => {
    const accounts = [
      await h.createAccount('Shared A', { username: 'demo', password: 'demo' }),
      await h.createAccount('Shared B', { username: 'alt', password: 'secret' }),
      await h.createAccount('Shared C', { username: 'third', password: 'pw3' }),
    ];
    const first: RunningWorker[] = [await h.start(), await h.start()];
    let n = await sendAll(accounts, 0, 8);
    expect(h.sim.state.counters.logins).toBe(3);
    // Both workers sent: the logins were shared, not one worker doing everything.
    const [row] = await h.app.sql<{ workers: number }[]>`SELECT count(DISTINCT worker_id)::int AS workers FROM submission_attempts`;
    expect(row?.workers).toBe(2);

    const stored = await h.app.sql<{ token_enc: string }[]>`SELECT token_enc FROM registry_sessions ORDER BY account_id`;
    expect(stored).toHaveLength(3);
    const tokens = stored.map((r) => h.app.keyring.decrypt(r.token_enc));
    for (const [i, r] of stored.entries()) {
      expect(r.token_enc.startsWith('v1.')).toBe(true);
      expect(r.token_enc).not.toContain(tokens[i]!);
    }
    for (const w of first) await w.stop();

    await Promise.all([h.start(), h.start()]);
    n = await sendAll(accounts, n, 4);
    expect(h.sim.state.counters.logins).toBe(3);
    // Never journaled, on either side.
    await h.app.journal.flush();
    const [leaked] = await h.app.sql<{ leaks: number }[]>`SELECT count(*)::int AS leaks FROM app_events WHERE ${tokens.map((t) => `%${t}%`)}::text[] && ARRAY[data::text]`;
    expect(leaked?.leaks).toBe(0);

    // A new epoch of one account (its credentials saved anew): that account logs in again, once.
    await h.app.sql`UPDATE accounts SET session_epoch = session_epoch + 1 WHERE id = ${accounts[0]!}`;
    await sendAll([accounts[0]!], n, 4);
    expect(h.sim.state.counters.logins).toBe(4);
  });

  it('workers that miss the session at the same moment log in once between them', async () => {
    const accountId = await h.createAccount('Thundering herd', { username: 'demo', password: 'demo' });
    const before = h.sim.state.counters.logins;
    // Queued before any worker of this account runs: every worker wants the login at once.
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await h.submit(accountId, { vin: vin(900 + i), reg_credentials: null })).id);
    await Promise.all([h.start(), h.start()]);
    for (const id of ids) await h.waitForStatus(id, 'sent', 15_000);
    expect(h.sim.state.counters.logins - before).toBe(1);
  });
});
