import { recordset } from '../db/recordset';
import { submissionAttempts, submissions } from '../db/schema';
import { DELIVERY_COLUMNS, deliveryColumns, submissionColumns, type Delivery, type DeliveryColumns } from '../src/services/submissions/store';
import { isDatabaseUnavailable } from '../db/unavailable';
import type { ClaimedJob } from './claim';
import type { WorkerContext } from './context';
import type { Outcome } from './failures';

const EVENT = { sent: 'worker_sent', error: 'worker_error', requeue: 'worker_requeued' } as const;
const STATUS = { sent: 'sent', error: 'error', requeue: 'queued' } as const;

/** One finished attempt as the statement below reads it: the submission's columns (store.ts) and its attempt row's. */
type OutcomeRow = { id: number } & DeliveryColumns & {
    attemptId: number;
    /** A release at shutdown says nothing new: the stored reg_error (and motiv) stay. */
    keepRegError: boolean;
    delayS: number;
    attemptsDelta: number;
    outcome: string;
    httpStatus: number | null;
    errorCode: string | null;
    latencyMs: number | null;
  };
const outcomes = recordset<OutcomeRow>({
  id: submissions.id,
  ...submissionColumns(DELIVERY_COLUMNS),
  attemptId: submissionAttempts.id,
  keepRegError: 'boolean',
  delayS: 'float8',
  attemptsDelta: 'integer',
  outcome: submissionAttempts.outcome,
  httpStatus: submissionAttempts.httpStatus,
  errorCode: submissionAttempts.errorCode,
  latencyMs: submissionAttempts.latencyMs,
});
const v = (key: keyof OutcomeRow & string) => outcomes.name('v', key);

function delivery(outcome: Outcome): Delivery {
  if (outcome.kind === 'sent') return { status: 'sent', registryId: outcome.registryId };
  if (outcome.kind === 'error') return { status: 'error', regError: outcome.regError };
  return { status: 'queued', regError: outcome.regError ?? null };
}

function toRow(ctx: WorkerContext, job: ClaimedJob, outcome: Outcome): OutcomeRow {
  return {
    id: job.id,
    ...deliveryColumns(delivery(outcome), ctx.clock()),
    attemptId: job.attemptId,
    keepRegError: outcome.kind === 'requeue' && !outcome.regError,
    delayS: outcome.kind === 'requeue' ? outcome.delayS : 0,
    attemptsDelta: outcome.kind === 'requeue' && !outcome.countsAsAttempt ? 1 : 0,
    outcome: outcome.outcome,
    httpStatus: outcome.httpStatus,
    errorCode: outcome.kind === 'sent' ? null : (outcome.regError?.cod ?? null),
    latencyMs: outcome.latencyMs,
  };
}

// Kept as text, built once: the worker writes outcomes hundreds of times a second, and a
// statement rebuilt by drizzle on each flush costs it CPU that a send would use.
const WRITE_OUTCOMES = `
    WITH v AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(${outcomes.definitions})
    ), mine AS MATERIALIZED (
      -- Locked in id order, as every multi-row update of the worker does: no deadlocks between them.
      SELECT s.id FROM submissions s JOIN v ON ${v('id')} = s.id
      WHERE s.status = 'sending' AND s.worker_id = $2
      ORDER BY s.id FOR UPDATE OF s
    ), upd AS (
      UPDATE submissions s SET
        status = ${v('status')},
        registry_id = CASE WHEN ${v('status')} = 'sent' THEN ${v('registryId')} ELSE s.registry_id END,
        sent_at = CASE WHEN ${v('status')} = 'sent' THEN now() ELSE s.sent_at END,
        reg_error = CASE WHEN ${v('keepRegError')} THEN s.reg_error ELSE ${v('regError')} END,
        motiv = CASE WHEN ${v('keepRegError')} THEN s.motiv ELSE ${v('motiv')} END,
        -- Once in the registry, the submission's own credentials have no further use.
        reg_creds_enc = CASE WHEN ${v('status')} = 'sent' THEN NULL ELSE s.reg_creds_enc END,
        worker_id = CASE WHEN ${v('status')} = 'queued' THEN NULL ELSE s.worker_id END,
        heartbeat_at = NULL,
        next_attempt_at = CASE WHEN ${v('status')} = 'queued' AND ${v('delayS')} > 0 THEN now() + make_interval(secs => ${v('delayS')}) END,
        purge_after = CASE WHEN ${v('status')} = 'queued' THEN s.purge_after ELSE ${v('purgeAfter')} END,
        attempts = s.attempts - ${v('attemptsDelta')},
        updated_at = now()
      FROM v JOIN mine ON mine.id = ${v('id')} WHERE s.id = ${v('id')}
      RETURNING s.id
    ), att AS (
      UPDATE submission_attempts a SET ended_at = now(), outcome = ${v('outcome')}, result_status = ${v('status')}, http_status = ${v('httpStatus')},
        registry_id = ${v('registryId')}, error_code = ${v('errorCode')}, latency_ms = ${v('latencyMs')}
      FROM v WHERE a.id = ${v('attemptId')} AND ${v('id')} IN (SELECT id FROM upd)
    )
    SELECT id FROM upd`;

/**
 * Writes finished attempts, many in one statement: each submission's new state and its
 * attempt row, and only while this worker still holds the claim (a row recovered as stale by
 * another worker is no longer ours to write). Returns the ids that were written.
 */
async function writeOutcomes(ctx: WorkerContext, rows: OutcomeRow[]): Promise<Set<number>> {
  // Passed as one JSON text: drizzle's driver replaces this client's Date and JSON serialisers.
  const written = await ctx.sql.unsafe<{ id: string }[]>(WRITE_OUTCOMES, [JSON.stringify(rows), ctx.workerId], { prepare: true });
  return new Set(written.map((r) => Number(r.id)));
}

function journal(ctx: WorkerContext, job: ClaimedJob, outcome: Outcome, held: boolean) {
  ctx.journal.write({
    event: held ? EVENT[outcome.kind] : 'worker_claim_lost',
    level: !held || outcome.kind === 'error' ? 'warn' : 'info',
    requestId: job.requestId,
    accountId: job.accountId,
    submissionId: job.id,
    data: {
      from: 'sending',
      to: held ? STATUS[outcome.kind] : null,
      attempt: job.attemptNo,
      outcome: outcome.outcome,
      http_status: outcome.httpStatus,
      registry_id: outcome.kind === 'sent' ? outcome.registryId : null,
      cod: outcome.kind === 'sent' ? null : (outcome.regError?.cod ?? null),
      cauza: outcome.kind === 'sent' ? null : (outcome.regError?.cauza ?? null),
      next_attempt_in_s: outcome.kind === 'requeue' ? Math.round(outcome.delayS) : null,
    },
  });
}

export interface OutcomeWriter {
  /** Resolves once the outcome is committed: true if this worker still held the claim. */
  record(job: ClaimedJob, outcome: Outcome): Promise<boolean>;
}

const GROUP_MS = 5;
const GROUP_MAX = 100;
/** How often outcomes are written again while the database cannot be reached. */
const RETRY_MS = 500;

/**
 * Group commit: outcomes finished within a few milliseconds are written together. At
 * hundreds of sends a second this halves the worker's database round trips; a crash before
 * the write leaves the rows `sending`, recovered and reconciled like any other.
 */
export function createOutcomeWriter(ctx: WorkerContext, signal?: AbortSignal): OutcomeWriter {
  let pending: Array<{ job: ClaimedJob; outcome: Outcome; done: (held: boolean) => void; fail: (e: unknown) => void }> = [];
  let timer: NodeJS.Timeout | undefined;

  async function flush() {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    try {
      const written = await writeOutcomes(
        ctx,
        batch.map((p) => toRow(ctx, p.job, p.outcome)),
      );
      for (const p of batch) {
        const held = written.has(p.job.id);
        journal(ctx, p.job, p.outcome, held);
        p.done(held);
      }
    } catch (error) {
      if (isDatabaseUnavailable(error) && !signal?.aborted) {
        // The outcome is known; it is written once the database is back (the rows stay
        // `sending`, ours and heartbeated, meanwhile), so a send that reached the registry
        // needs no reconciliation. At shutdown they are left to the stale recovery instead.
        pending = [...batch, ...pending];
        timer ??= setTimeout(() => void flush(), RETRY_MS);
        return;
      }
      for (const p of batch) p.fail(error);
    }
  }

  return {
    record(job, outcome) {
      return new Promise<boolean>((done, fail) => {
        pending.push({ job, outcome, done, fail });
        if (pending.length >= GROUP_MAX) void flush();
        else timer ??= setTimeout(() => void flush(), GROUP_MS);
      });
    },
  };
}
