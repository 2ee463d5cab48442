import { z } from 'zod';
import type { WorkerContext } from './context';

// Any constant: serialises the claims of all worker processes, so what a claim reads of the
// rows already `sending` (their count and worker per account) holds until it commits. A claim
// takes milliseconds.
const CLAIM_LOCK = 727_003;
export const CLAIM_PER_SLOT = 2;

/** A claimed submission, validated as read: the worker trusts nothing it did not check. */
export const ClaimedJob = z.object({
  id: z.coerce.number(),
  accountId: z.coerce.number(),
  payload: z.record(z.string(), z.unknown()),
  prestatii: z.array(z.unknown()).nullable(),
  submissionCredsEnc: z.string().nullable(),
  accountCredsEnc: z.string().nullable(),
  requestId: z.string().nullable(),
  attempts: z.coerce.number(),
  attemptId: z.coerce.number(),
  attemptNo: z.coerce.number(),
  sessionEpoch: z.coerce.number(),
  /** The epoch under which the account's durable credentials were refused at login, if any (worker/login.ts). */
  credsRefusedEpoch: z.number().int().nullable(),
  /** An earlier attempt may have reached the registry: reconcile before sending. */
  inDoubt: z.boolean(),
  /** Earlier waits for credentials, for their backoff. */
  credentialWaits: z.coerce.number(),
});
export type ClaimedJob = z.infer<typeof ClaimedJob>;

/** A worker is counted live for the accounts' share while its heartbeat is this many beats old at most. */
const LIVE_BEATS = 3;

/**
 * Moves up to `limit` due queued submissions to `sending` for this worker, in one
 * transaction: at most 2 × `concurrencyPerAccount` rows `sending` per account, the lowest ids
 * of each account first and accounts interleaved, so one busy account cannot starve the
 * others. Each claimed row gets its attempt row at once.
 *
 * An account is sent by one worker at a time: while another worker has rows of it `sending`,
 * this one takes none, so the account's registry limit is its worker's own (worker/limiter.ts),
 * with no database work per registry call. A worker takes up an account nobody sends only while
 * it sends fewer than its share (the accounts with work over the live workers, rounded up), so
 * the accounts spread over the workers; the serialised claim makes both rules race-free.
 *
 * Once `stopped` is aborted (the worker stops) the claim is not sent: one that was still
 * waiting for its connection would otherwise claim, after the stop, rows queued since.
 */
export async function claimBatch(ctx: WorkerContext, limit: number, stopped?: AbortSignal): Promise<ClaimedJob[]> {
  if (limit <= 0) return [];
  // Twice the registry slots: while some rows call the registry, the others are being
  // prepared or recorded. The registry itself sees at most the limit (worker/limiter.ts).
  const perAccount = ctx.settings.concurrencyPerAccount * CLAIM_PER_SLOT;
  // Two round trips: BEGIN, then the rest, which postgres.js writes together as they are issued
  // in one tick, and Postgres runs in order, so the claim's snapshot is taken once the lock is
  // held and sees every earlier claim. A failed statement rolls the transaction back. Not
  // sql.reserve(), which would save the BEGIN's round trip: postgres.js 3.4.9 loses a reserve()
  // that waits for a connection while it is cut and opens again (a failover), and the claim,
  // awaited by every later one, never ended (worker-tasks.test.ts, "claim over a connection cut").
  const results = await ctx.sql.begin((tx) => {
    // Checked in the tick that writes the claim: nothing can stop the worker in between.
    if (stopped?.aborted) return [];
    const claim = tx<Record<string, unknown>[]>`
      WITH RECURSIVE inflight AS (
        SELECT scope_account_id AS acct, count(*)::int AS n, bool_and(worker_id = ${ctx.workerId}) AS mine
        FROM submissions WHERE status = 'sending' GROUP BY 1
      ), queued_accounts AS (
        -- The accounts with queued rows, one index probe each (a skip scan of the queued
        -- index) instead of reading the whole queue: a claim costs the same with a backlog.
        SELECT (SELECT scope_account_id FROM submissions WHERE status = 'queued' ORDER BY scope_account_id LIMIT 1) AS acct
        UNION ALL
        SELECT (SELECT s.scope_account_id FROM submissions s WHERE s.status = 'queued' AND s.scope_account_id > q.acct ORDER BY s.scope_account_id LIMIT 1)
        FROM queued_accounts q WHERE q.acct IS NOT NULL
      ), open AS (
        -- Queued accounts no other worker is sending: this worker's own (mine), or nobody's (NULL).
        SELECT q.acct, coalesce(i.n, 0) AS busy, i.mine
        FROM queued_accounts q LEFT JOIN inflight i ON i.acct = q.acct
        WHERE q.acct IS NOT NULL AND i.mine IS NOT FALSE
      ), share AS (
        SELECT ceil((SELECT count(*) FROM (SELECT acct FROM open UNION SELECT acct FROM inflight) a)::numeric
                    / greatest(1, (SELECT count(*) FROM worker_state WHERE heartbeat_at > now() - make_interval(secs => ${ctx.settings.heartbeatS * LIVE_BEATS}))))::int
               - (SELECT count(*) FROM inflight WHERE mine)::int AS more
      ), due AS (
        SELECT acct, busy FROM open WHERE mine
        UNION ALL
        (SELECT acct, busy FROM open WHERE mine IS NULL ORDER BY acct LIMIT (SELECT greatest(0, more) FROM share))
      ), picked AS (
        SELECT p.id, d.busy, row_number() OVER (PARTITION BY d.acct ORDER BY p.id) AS rn
        FROM due d
        CROSS JOIN LATERAL (
          SELECT s.id FROM submissions s
          WHERE s.scope_account_id = d.acct AND s.status = 'queued'
            AND (s.next_attempt_at IS NULL OR s.next_attempt_at <= now())
          ORDER BY s.id LIMIT ${perAccount}
          FOR UPDATE SKIP LOCKED
        ) p
      ), chosen AS (
        SELECT id FROM picked WHERE rn + busy <= ${perAccount} ORDER BY rn, id LIMIT ${limit}
      ), claimed AS (
        UPDATE submissions s
        SET status = 'sending', worker_id = ${ctx.workerId}, heartbeat_at = now(), attempts = s.attempts + 1, updated_at = now()
        FROM chosen WHERE s.id = chosen.id AND s.status = 'queued'
        RETURNING s.id, s.scope_account_id AS account_id, s.payload_json, s.prestatii, s.reg_creds_enc, s.request_id, s.attempts
      ), attempt AS (
        INSERT INTO submission_attempts (submission_id, attempt_no, worker_id)
        SELECT c.id, coalesce((SELECT max(a.attempt_no) FROM submission_attempts a WHERE a.submission_id = c.id), 0) + 1, ${ctx.workerId}
        FROM claimed c
        RETURNING id, submission_id, attempt_no
      )
      -- Sub-statements share one snapshot: the attempt rows inserted above are not seen by
      -- the EXISTS below, which therefore looks only at earlier attempts.
      SELECT c.id, c.account_id AS "accountId", c.payload_json AS payload, c.prestatii, c.reg_creds_enc AS "submissionCredsEnc",
             acc.reg_creds_enc AS "accountCredsEnc", c.request_id AS "requestId", c.attempts,
             at.id AS "attemptId", at.attempt_no AS "attemptNo", coalesce(acc.session_epoch, 0) AS "sessionEpoch",
             acc.reg_creds_refused_epoch AS "credsRefusedEpoch",
             EXISTS (SELECT 1 FROM submission_attempts x WHERE x.submission_id = c.id AND (x.outcome = 'in_doubt' OR x.ended_at IS NULL)) AS "inDoubt",
             (SELECT count(*) FROM submission_attempts x WHERE x.submission_id = c.id AND x.outcome = 'no_credentials')::int AS "credentialWaits"
      FROM claimed c
      JOIN attempt at ON at.submission_id = c.id
      LEFT JOIN accounts acc ON acc.id = c.account_id
      ORDER BY c.id`;
    return [
      // The rows `sending` are read by a plain index scan, which marks the index entries of rows
      // already sent as dead for the next claim; a bitmap scan marks none, and with two workers
      // each claim read ~3,300 dead entries (bench:scale, pg_stat_user_indexes).
      tx`SET LOCAL enable_bitmapscan = off`.execute(),
      tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(),
      claim.execute(),
    ];
  });
  const claimed = (results[2] ?? []) as Record<string, unknown>[];
  return claimed.map((row) => ClaimedJob.parse(row));
}

/**
 * `sending` rows whose worker stopped heartbeating (it died, or lost the database) go back
 * to `queued`; their unfinished attempt is marked `in_doubt`, so the next claim reconciles
 * against the registry's finalised list before it sends anything again.
 */
export async function recoverStale(ctx: WorkerContext): Promise<Array<{ id: number; accountId: number; requestId: string | null; workerId: string | null }>> {
  const rows = await ctx.sql<{ id: string; account_id: number; request_id: string | null; worker_id: string | null }[]>`
    WITH stale AS (
      SELECT id, worker_id FROM submissions
      WHERE status = 'sending' AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => ${ctx.settings.staleS}))
      FOR UPDATE SKIP LOCKED
    ), requeued AS (
      UPDATE submissions s SET status = 'queued', worker_id = NULL, heartbeat_at = NULL, next_attempt_at = NULL, updated_at = now()
      FROM stale WHERE s.id = stale.id
      RETURNING s.id, s.scope_account_id AS account_id, s.request_id, stale.worker_id
    ), closed AS (
      UPDATE submission_attempts a SET outcome = 'in_doubt', ended_at = now(), error_code = 'REG_RETEA', result_status = 'queued'
      WHERE a.submission_id IN (SELECT id FROM requeued) AND a.ended_at IS NULL
    )
    SELECT * FROM requeued`;
  return rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id), requestId: r.request_id, workerId: r.worker_id }));
}
