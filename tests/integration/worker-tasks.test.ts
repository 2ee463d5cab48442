import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import type { TransactionSql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../db/client';
import type { CanonicalContent } from '../../src/domain/canonical';
import { claimBatch, type ClaimedJob } from '../../worker/claim';
import type { WorkerContext } from '../../worker/context';
import { createOutcomeWriter } from '../../worker/outcome';
import { buildRecord, type StoredItem } from '../../worker/registry/record';
import { SentRecord } from '../../worker/registry/sim-state';
import { heartbeat } from '../../worker/tasks/heartbeat';
import { pruneJournal } from '../../worker/tasks/journal-retention';
import { purge } from '../../worker/tasks/purge';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';

let h: WorkerHarness;
let ctx: WorkerContext;

beforeAll(async () => {
  h = await startWorkerHarness({ GATEWAY_SENDING_STALE_S: '3' });
  ctx = h.workerContext();
});
afterAll(() => h.close());

/** A TCP relay to the database whose connections `cut` resets, as a failover or a lost network does. */
async function cuttableProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    close: () => server.close(),
  };
}

/** A submission row written directly, in any state, with `purge_after` relative to now. */
async function insertRow(status: string, purgeDays: number | null, options: { creds?: string; accountId?: number } = {}) {
  const [row] = await h.app.sql<{ id: string }[]>`
    INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie, reg_creds_enc, purge_after)
    VALUES (${options.accountId ?? 1}, ${status}, '{}'::jsonb, ${randomBytes(8).toString('hex')}, 'WDB1234561A400000', 'B1', '2025-03-14',
            ${options.creds ?? null}, CASE WHEN ${purgeDays}::int IS NULL THEN NULL ELSE now() + make_interval(days => ${purgeDays}::int) END)
    RETURNING id`;
  return Number(row!.id);
}
const exists = async (id: number) => (await h.app.sql`SELECT 1 FROM submissions WHERE id = ${id}`).length === 1;

describe('purge (daily)', () => {
  it('deletes submissions past purge_after, never queued or sending ones', async () => {
    const sentOld = await insertRow('sent', -1);
    const errorOld = await insertRow('error', -1);
    const heldOld = await insertRow('needs_data', -1);
    const queuedOld = await insertRow('queued', -1);
    const sendingOld = await insertRow('sending', -1);
    const sentNew = await insertRow('sent', 10);
    await h.app.sql`INSERT INTO submission_attempts (submission_id, attempt_no, outcome) VALUES (${sentOld}, 1, 'sent')`;
    const result = await purge(ctx);
    expect(result.submissions).toBe(3);
    expect(await exists(sentOld)).toBe(false);
    expect(await exists(errorOld)).toBe(false);
    expect(await exists(heldOld)).toBe(false);
    expect(await exists(queuedOld)).toBe(true);
    expect(await exists(sendingOld)).toBe(true);
    expect(await exists(sentNew)).toBe(true);
    expect(await h.app.sql`SELECT 1 FROM submission_attempts WHERE submission_id = ${sentOld}`).toHaveLength(0);
  });

  it('erases ephemeral credentials no longer needed, never the account’s nor those still owed a send', async () => {
    const accountId = await h.createAccount('Purge creds', { username: 'alt', password: 'secret' });
    const sent = await insertRow('sent', 90, { creds: 'v1.x.y.z.w', accountId });
    const queued = await insertRow('queued', null, { creds: 'v1.x.y.z.q', accountId });
    await purge(ctx);
    const creds = async (id: number) => (await h.app.sql<{ c: string | null }[]>`SELECT reg_creds_enc AS c FROM submissions WHERE id = ${id}`)[0]!.c;
    expect(await creds(sent)).toBeNull();
    expect(await creds(queued)).toBe('v1.x.y.z.q');
    const [acct] = await h.app.sql<{ c: string | null }[]>`SELECT reg_creds_enc AS c FROM accounts WHERE id = ${accountId}`;
    expect(acct!.c).not.toBeNull();
  });

  it('deletes staged import batches past purge_after with their rows and blocks', async () => {
    const batch = async (days: number) => {
      const [b] = await h.app.sql<{ id: number }[]>`
        INSERT INTO import_batches (account_id, header, header_signature, purge_after)
        VALUES (1, '[]'::jsonb, 'sig', now() + make_interval(days => ${days})) RETURNING id`;
      await h.app.sql`INSERT INTO import_rows (batch_id, row_index, purge_after) VALUES (${b!.id}, 1, now() + make_interval(days => ${days}))`;
      await h.app.sql`INSERT INTO import_row_blocks (batch_id, block_no, raw_enc, purge_after) VALUES (${b!.id}, 0, 'enc', now() + make_interval(days => ${days}))`;
      // A row without a date of its own still goes with its batch.
      await h.app.sql`INSERT INTO import_rows (batch_id, row_index) VALUES (${b!.id}, 2)`;
      return b!.id;
    };
    const old = await batch(-1);
    const fresh = await batch(30);
    const result = await purge(ctx);
    expect(result).toMatchObject({ importBatches: 1, importRows: 1, importBlocks: 1 });
    expect(await h.app.sql`SELECT 1 FROM import_batches WHERE id = ${old}`).toHaveLength(0);
    expect(await h.app.sql`SELECT 1 FROM import_rows WHERE batch_id = ${old}`).toHaveLength(0);
    expect(await h.app.sql`SELECT 1 FROM import_row_blocks WHERE batch_id = ${old}`).toHaveLength(0);
    expect(await h.app.sql`SELECT 1 FROM import_rows WHERE batch_id = ${fresh}`).toHaveLength(2);
    expect(await h.app.sql`SELECT 1 FROM import_row_blocks WHERE batch_id = ${fresh}`).toHaveLength(1);
  });

  it('removes dashboard sessions idle past GATEWAY_SESSION_IDLE_MIN and keeps live ones', async () => {
    const [user] = await h.app.sql<{ id: number }[]>`
      INSERT INTO web_users (account_id, email, password_hash) VALUES (1, 'purge@service.ro', 'scrypt$x') RETURNING id`;
    await h.app.sql`INSERT INTO web_sessions (token_hash, user_id, csrf_token, last_seen_at) VALUES
      ('idle', ${user!.id}, 'c', now() - interval '2 hours'), ('live', ${user!.id}, 'c', now() - interval '5 minutes')`;
    expect((await purge(ctx)).sessions).toBe(1);
    expect((await h.app.sql<{ token_hash: string }[]>`SELECT token_hash FROM web_sessions`).map((r) => r.token_hash)).toEqual(['live']);
  });
});

describe('journal retention', () => {
  it('deletes journal rows older than 90 days and keeps younger ones', async () => {
    await h.app.sql`INSERT INTO app_events (ts, event) VALUES (now() - interval '91 days', 'old_event'), (now() - interval '89 days', 'young_event')`;
    await pruneJournal(ctx);
    const names = (await h.app.sql<{ event: string }[]>`SELECT event FROM app_events WHERE event IN ('old_event', 'young_event')`).map((r) => r.event);
    expect(names).toEqual(['young_event']);
  });
});

describe('claim', () => {
  it('moves nothing when its statement fails, and leaves neither the lock nor a connection held', async () => {
    const id = await insertRow('queued', null);
    // A negative per-account limit makes the claim statement itself fail, after BEGIN and the lock.
    const broken: WorkerContext = { ...ctx, settings: { ...ctx.settings, concurrencyPerAccount: -1 } };
    // More failures than the pool has connections: a connection kept reserved would hang the next claim.
    for (let i = 0; i < 25; i++) await expect(claimBatch(broken, 5)).rejects.toThrow(/LIMIT/);
    expect((await h.app.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`)[0]!.status).toBe('queued');
    expect(await h.app.sql`SELECT 1 FROM submission_attempts WHERE submission_id = ${id}`).toHaveLength(0);
    const claimed = await claimBatch(ctx, 100);
    expect(claimed.map((job) => job.id)).toContain(id);
    expect(claimed.find((job) => job.id === id)).toMatchObject({ attemptNo: 1, inDoubt: false });
    await h.app.sql`DELETE FROM submissions WHERE id = ${id}`;
  });
});

describe('claim over a connection cut', () => {
  it('ends when the connection it waits for is cut and opens again: it claims over the new one, and the pool serves the next', async () => {
    // postgres.js 3.4.9 loses a reserve() that waits for a connection while that connection is cut
    // and opens again, as in a failover: a claim over one never ended, nor did any claim after it.
    const id = await insertRow('queued', null);
    const proxy = await cuttableProxy(h.database.url);
    const { sql, close } = createDb(proxy.url, { max: 1 });
    try {
      // The pool's one connection opens for this query and is busy with it, so the claim waits.
      const busy = sql`SELECT pg_sleep(3)`.catch((error: unknown) => (error as { code?: string }).code);
      await waitFor(async () => (await h.app.sql`SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(3)'`).length > 0 || undefined, 5_000, 'the busy connection');
      const claiming = claimBatch({ ...ctx, sql }, 100).then((jobs) => jobs.map((job) => job.id));
      await new Promise((resolve) => setTimeout(resolve, 100));
      proxy.cut();
      expect(await busy).toBe('ECONNRESET');
      expect(await Promise.race([claiming, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000))])).toEqual([id]);
      expect(await claimBatch({ ...ctx, sql }, 100)).toEqual([]);
    } finally {
      await close();
      proxy.close();
      await h.app.sql`DELETE FROM submissions WHERE id = ${id}`;
    }
  });
});

describe('claim and stop', () => {
  it('a claim still waiting for its connection when the worker stops claims nothing, not even a row queued meanwhile', async () => {
    let connected!: () => void;
    const gate = new Promise<void>((resolve) => (connected = resolve));
    const sql = new Proxy(ctx.sql, {
      get: (target, name, receiver) =>
        name === 'begin'
          ? async (fn: (tx: TransactionSql) => unknown) => {
              await gate;
              return target.begin(fn);
            }
          : Reflect.get(target, name, receiver),
    });
    const stop = new AbortController();
    const claiming = claimBatch({ ...ctx, sql }, 100, stop.signal);
    stop.abort();
    const id = await insertRow('queued', null);
    connected();
    expect(await claiming).toEqual([]);
    expect((await h.app.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`)[0]!.status).toBe('queued');
    // Its connection went back to the pool: the next claim takes the row.
    expect((await claimBatch(ctx, 100)).map((job) => job.id)).toContain(id);
    await h.app.sql`DELETE FROM submissions WHERE id = ${id}`;
  });
});

describe('claim across accounts', () => {
  it('takes every account with due rows, its lowest ids first, at most twice its registry slots, and skips rows not yet due', async () => {
    const [busy, small, waiting] = [await h.createAccount('Backlog'), await h.createAccount('Small'), await h.createAccount('Backing off')];
    const rows = async (accountId: number, n: number) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(await insertRow('queued', null, { accountId }));
      return ids;
    };
    const backlog = await rows(busy, 20);
    const few = await rows(small, 2);
    const later = await rows(waiting, 3);
    await h.app.sql`UPDATE submissions SET next_attempt_at = now() + interval '1 hour' WHERE id IN ${h.app.sql(later)}`;
    try {
      const claimed = await claimBatch(ctx, 100);
      const of = (accountId: number) => claimed.filter((job) => job.accountId === accountId).map((job) => job.id);
      const perAccount = ctx.settings.concurrencyPerAccount * 2;
      expect(of(busy)).toEqual(backlog.slice(0, perAccount));
      expect(of(small)).toEqual(few);
      expect(of(waiting)).toEqual([]);
      // The places already `sending` count: the backlog gets nothing more until they finish.
      expect((await claimBatch(ctx, 100)).filter((job) => job.accountId === busy)).toEqual([]);
    } finally {
      await h.app.sql`DELETE FROM submissions WHERE id IN ${h.app.sql([...backlog, ...few, ...later])}`;
    }
  });
});

describe('claim: one worker sends an account at a time', () => {
  const queuedRows = async (accountId: number, n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await insertRow('queued', null, { accountId }));
    return ids;
  };
  const accountsOf = (jobs: ClaimedJob[], among: number[]) => [...new Set(jobs.map((job) => job.accountId))].filter((a) => among.includes(a)).sort((a, b) => a - b);

  it('takes nothing of an account another worker is sending, and takes it up once those rows are done', async () => {
    const account = await h.createAccount('Sent elsewhere');
    const [theirs, ...queued] = await queuedRows(account, 4);
    await h.app.sql`UPDATE submissions SET status = 'sending', worker_id = 'other-worker', heartbeat_at = now() WHERE id = ${theirs!}`;
    try {
      expect((await claimBatch(ctx, 100)).filter((job) => job.accountId === account)).toEqual([]);
      await h.app.sql`UPDATE submissions SET status = 'sent', worker_id = NULL WHERE id = ${theirs!}`;
      expect((await claimBatch(ctx, 100)).filter((job) => job.accountId === account).map((job) => job.id)).toEqual(queued);
    } finally {
      await h.app.sql`DELETE FROM submissions WHERE id IN ${h.app.sql([theirs!, ...queued])}`;
    }
  });

  it('takes up new accounts only to its share of the live workers, and the rest when the other worker stops beating', async () => {
    // Rows left queued or sending by the tests above would count among the accounts with work.
    await h.app.sql`UPDATE submissions SET status = 'sent' WHERE status IN ('queued', 'sending')`;
    await h.app.sql`DELETE FROM worker_state`;
    await h.app.sql`INSERT INTO worker_state (worker_id, heartbeat_at) VALUES (${ctx.workerId}, now()), ('other-worker', now())`;
    const accounts = [await h.createAccount('Share 1'), await h.createAccount('Share 2'), await h.createAccount('Share 3'), await h.createAccount('Share 4')];
    const ids = (await Promise.all(accounts.map((a) => queuedRows(a, 2)))).flat();
    try {
      // Four accounts with work, two live workers: two each, the lowest first.
      expect(accountsOf(await claimBatch(ctx, 100), accounts)).toEqual(accounts.slice(0, 2));
      expect(accountsOf(await claimBatch(ctx, 100), accounts)).toEqual([]);
      // The other worker's heartbeat is older than three beats: it no longer counts.
      await h.app.sql`UPDATE worker_state SET heartbeat_at = now() - make_interval(secs => ${ctx.settings.heartbeatS * 3 + 1}) WHERE worker_id = 'other-worker'`;
      expect(accountsOf(await claimBatch(ctx, 100), accounts)).toEqual(accounts.slice(2));
    } finally {
      await h.app.sql`DELETE FROM submissions WHERE id IN ${h.app.sql(ids)}`;
      await h.app.sql`DELETE FROM worker_state`;
    }
  });
});

describe('claim of rows without an account', () => {
  it('claims them as account 1, within the places account 1 has', async () => {
    // Account 1's rows left queued or sending by the tests above would take its places.
    await h.app.sql`UPDATE submissions SET status = 'sent' WHERE status IN ('queued', 'sending') AND (account_id = 1 OR account_id IS NULL)`;
    const perAccount = ctx.settings.concurrencyPerAccount * 2;
    const ids: number[] = [];
    for (let i = 0; i < perAccount; i++) ids.push(await insertRow('queued', null));
    const orphans: number[] = [];
    for (let i = 0; i < perAccount; i++) orphans.push(await insertRow('queued', null));
    await h.app.sql`UPDATE submissions SET account_id = NULL WHERE id IN ${h.app.sql(orphans)}`;
    try {
      const mine = (await claimBatch(ctx, 100)).filter((job) => [...ids, ...orphans].includes(job.id));
      expect(mine.map((job) => job.id)).toEqual(ids.slice(0, perAccount));
      await h.app.sql`UPDATE submissions SET status = 'sent' WHERE id IN ${h.app.sql(ids)}`;
      const next = (await claimBatch(ctx, 100)).filter((job) => orphans.includes(job.id));
      expect(next.map((job) => [job.id, job.accountId])).toEqual(orphans.map((id) => [id, 1]));
    } finally {
      await h.app.sql`DELETE FROM submissions WHERE id IN ${h.app.sql([...ids, ...orphans])}`;
    }
  });
});

describe('outcome writer', () => {
  it('locks its rows in id order: a transaction locking them in id order waits, never deadlocks', async () => {
    const ids = [await insertRow('sending', null), await insertRow('sending', null)];
    await h.app.sql`UPDATE submissions SET worker_id = ${ctx.workerId} WHERE id IN ${h.app.sql(ids)}`;
    const jobs = await Promise.all(
      ids.map(async (id): Promise<ClaimedJob> => {
        const [a] = await h.app.sql<{ id: string }[]>`INSERT INTO submission_attempts (submission_id, attempt_no, worker_id) VALUES (${id}, 1, ${ctx.workerId}) RETURNING id`;
        return {
          id,
          accountId: 1,
          payload: {},
          prestatii: [],
          submissionCredsEnc: null,
          accountCredsEnc: null,
          requestId: null,
          attempts: 1,
          attemptId: Number(a!.id),
          attemptNo: 1,
          sessionEpoch: 0,
          credsRefusedEpoch: null,
          inDoubt: false,
          credentialWaits: 0,
        };
      }),
    );
    const [low, high] = ids as [number, number];
    // Another transaction (the heartbeat, a login's erasure) holds the lower id and will want the higher one.
    const other = await h.app.sql.reserve();
    try {
      await other`BEGIN`;
      await other`SELECT id FROM submissions WHERE id = ${low} FOR UPDATE`;
      // Finished in the opposite order: a writer locking in that order would hold `high` and wait for `low`.
      const writer = createOutcomeWriter(ctx);
      const written = Promise.all(
        [...jobs].reverse().map((job) => writer.record(job, { kind: 'sent', outcome: 'sent', registryId: `R-${job.id}`, httpStatus: 201, latencyMs: 5 })),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(other`SELECT id FROM submissions WHERE id = ${high} FOR UPDATE`).resolves.toHaveLength(1);
      await other`COMMIT`;
      expect(await written).toEqual([true, true]);
    } finally {
      other.release();
    }
    const rows = await h.app.sql<{ status: string; registry_id: string }[]>`SELECT status, registry_id FROM submissions WHERE id IN ${h.app.sql(ids)} ORDER BY id`;
    expect(rows).toEqual([
      { status: 'sent', registry_id: `R-${low}` },
      { status: 'sent', registry_id: `R-${high}` },
    ]);
  });
});

describe('heartbeat and stale sending rows', () => {
  it('writes worker_state, which /healthz reads', async () => {
    await heartbeat(ctx);
    const [row] = await h.app.sql<{ worker_id: string }[]>`SELECT worker_id FROM worker_state WHERE heartbeat_at > now() - interval '5 seconds'`;
    expect(row!.worker_id).toBe(ctx.workerId);
  });

  /** A `sending` row left by a worker that died mid-send, with its unfinished attempt. */
  async function orphan(vin: string, accountId: number) {
    const s = await h.submit(accountId, { vin });
    await h.app.sql`UPDATE submissions SET status = 'sending', worker_id = 'dead-worker', heartbeat_at = now() - interval '1 hour', attempts = 1 WHERE id = ${s.id}`;
    await h.app.sql`INSERT INTO submission_attempts (submission_id, attempt_no, worker_id, started_at) VALUES (${s.id}, 1, 'dead-worker', now() - interval '1 hour')`;
    const [row] = await h.app.sql<{ payload_json: CanonicalContent; prestatii: StoredItem[] }[]>`SELECT payload_json, prestatii FROM submissions WHERE id = ${s.id}`;
    return { ...s, record: buildRecord(row!.payload_json, row!.prestatii, ctx.protocol) };
  }

  it('recovers them: reconciled as sent when the registry has the record, sent once when it does not', async () => {
    const accountId = await h.createAccount('Stale', { username: 'demo', password: 'demo' });
    const arrived = await orphan('WDB1234561A400001', accountId);
    const lost = await orphan('WDB1234561A400002', accountId);
    // The dead worker's send of `arrived` reached the registry before it died.
    const stored = h.sim.state.store('demo', SentRecord.parse(arrived.record));
    await h.start(ctx);
    const a = await h.waitForStatus(arrived.id, 'sent', 8_000);
    await h.waitForStatus(lost.id, 'sent', 8_000);
    expect(a.registry_id).toBe(String(stored.id));
    expect(h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561A400001')).toHaveLength(1);
    expect(h.sim.state.records.filter((r) => r.record.vin === 'WDB1234561A400002')).toHaveLength(1);
    expect((await h.attempts(arrived.id)).map((x) => x.outcome)).toEqual(['in_doubt', 'reconciled']);
    expect((await h.attempts(lost.id)).map((x) => x.outcome)).toEqual(['in_doubt', 'sent']);
    expect((await h.events(arrived.id)).map((e) => e.event)).toContain('worker_recovered');
  });
});
