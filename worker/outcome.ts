import { purgeAfterFor } from '../src/services/submissions/retention';
import type { ClaimedJob } from './claim';
import type { WorkerContext } from './context';
import type { Outcome } from './failures';

// drizzle's driver replaces this client's Date and JSON serialisers: pass text and cast.
const iso = (d: Date | null) => d?.toISOString() ?? null;
const EVENT = { sent: 'worker_sent', error: 'worker_error', requeue: 'worker_requeued' } as const;
const STATUS = { sent: 'sent', error: 'error', requeue: 'queued' } as const;

/**
 * Writes the end of an attempt: the submission's new state and the attempt row, in one
 * statement, and only while this worker still holds the claim (a row recovered as stale by
 * another worker is no longer ours to write). Journalled with the submission's request id.
 */
export async function recordOutcome(ctx: WorkerContext, job: ClaimedJob, outcome: Outcome): Promise<boolean> {
  const now = ctx.clock();
  const errorCode = outcome.kind === 'sent' ? null : (outcome.regError?.cod ?? null);
  const registryId = outcome.kind === 'sent' ? outcome.registryId : null;
  let rows: Array<{ id: string }>;
  if (outcome.kind === 'sent') {
    rows = await ctx.sql`
      WITH upd AS (
        UPDATE submissions SET status = 'sent', registry_id = ${outcome.registryId}, sent_at = now(), reg_error = NULL, motiv = NULL,
          reg_creds_enc = NULL, heartbeat_at = NULL, next_attempt_at = NULL, purge_after = ${iso(purgeAfterFor('sent', now))}::timestamptz, updated_at = now()
        WHERE id = ${job.id} AND status = 'sending' AND worker_id = ${ctx.workerId} RETURNING id
      ), att AS (
        UPDATE submission_attempts SET ended_at = now(), outcome = ${outcome.outcome}, result_status = ${STATUS[outcome.kind]}, http_status = ${outcome.httpStatus},
          registry_id = ${outcome.registryId}, latency_ms = ${outcome.latencyMs}
        WHERE id = ${job.attemptId} AND EXISTS (SELECT 1 FROM upd)
      )
      SELECT id FROM upd`;
  } else if (outcome.kind === 'error') {
    const motiv = `${outcome.regError.problema} ${outcome.regError.cauza}`.trim();
    rows = await ctx.sql`
      WITH upd AS (
        UPDATE submissions SET status = 'error', reg_error = ${JSON.stringify(outcome.regError)}::jsonb, motiv = ${motiv},
          heartbeat_at = NULL, next_attempt_at = NULL, purge_after = ${iso(purgeAfterFor('error', now))}::timestamptz, updated_at = now()
        WHERE id = ${job.id} AND status = 'sending' AND worker_id = ${ctx.workerId} RETURNING id
      ), att AS (
        UPDATE submission_attempts SET ended_at = now(), outcome = ${outcome.outcome}, result_status = ${STATUS[outcome.kind]}, http_status = ${outcome.httpStatus},
          error_code = ${errorCode}, latency_ms = ${outcome.latencyMs}
        WHERE id = ${job.attemptId} AND EXISTS (SELECT 1 FROM upd)
      )
      SELECT id FROM upd`;
  } else {
    const regErrorJson = outcome.regError ? JSON.stringify(outcome.regError) : null;
    const motiv = outcome.regError ? `${outcome.regError.problema} ${outcome.regError.cauza}`.trim() : null;
    rows = await ctx.sql`
      WITH upd AS (
        UPDATE submissions SET status = 'queued', worker_id = NULL, heartbeat_at = NULL,
          reg_error = coalesce(${regErrorJson}::jsonb, reg_error), motiv = coalesce(${motiv}, motiv),
          next_attempt_at = CASE WHEN ${outcome.delayS}::float8 > 0 THEN now() + make_interval(secs => ${outcome.delayS}::float8) END,
          attempts = attempts - ${outcome.countsAsAttempt ? 0 : 1}, updated_at = now()
        WHERE id = ${job.id} AND status = 'sending' AND worker_id = ${ctx.workerId} RETURNING id
      ), att AS (
        UPDATE submission_attempts SET ended_at = now(), outcome = ${outcome.outcome}, result_status = ${STATUS[outcome.kind]}, http_status = ${outcome.httpStatus},
          error_code = ${errorCode}, latency_ms = ${outcome.latencyMs}
        WHERE id = ${job.attemptId} AND EXISTS (SELECT 1 FROM upd)
      )
      SELECT id FROM upd`;
  }
  const held = rows.length > 0;
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
      registry_id: registryId,
      cod: errorCode,
      cauza: outcome.kind === 'sent' ? null : (outcome.regError?.cauza ?? null),
      next_attempt_in_s: outcome.kind === 'requeue' ? Math.round(outcome.delayS) : null,
    },
  });
  return held;
}
