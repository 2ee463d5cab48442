import { deliveryColumns } from '../src/services/submissions/store';
import type { ClaimedJob } from './claim';
import type { WorkerContext } from './context';
import type { Outcome } from './failures';
import { MARGIN_MS } from './sessions';

/**
 * One send of the account found no credentials anywhere: nor will the account's other queued
 * submissions without credentials of their own, so they are put off in one statement instead
 * of each being claimed for it, which a backlog paid again at every backoff. The claimed ones
 * (at most one claim's worth, the lowest ids) keep retrying on their growing backoff; the
 * others wait the longest backoff, and are woken before that by whatever brings credentials:
 * a save (services/accounts/reg-creds.ts) or a successful login of the account (login.ts).
 * Only rows due before the claimed one's next try, with no other error pending (a network
 * backoff, a reconciliation), are touched, so the account's other sends do not rewrite them.
 *
 * The account's row is locked first (FOR SHARE): a save of credentials (its UPDATE of the
 * account, then its wake-up of the queued rows) runs wholly before or wholly after, so it never
 * finds its wake-up undone. The submissions are skipped when locked, never waited for.
 */
export async function deferCredentialWaits(ctx: WorkerContext, job: ClaimedJob, outcome: Extract<Outcome, { kind: 'requeue' }>): Promise<void> {
  const putOffS = Math.max(ctx.settings.credsRetryMaxS, outcome.delayS);
  const { regError, motiv } = deliveryColumns({ status: 'queued', regError: outcome.regError ?? null }, ctx.clock());
  const deferred = await ctx.sql.begin(async (tx) => {
    const [account] = await tx<{ id: number }[]>`
      SELECT a.id FROM accounts a
      WHERE a.id = ${job.accountId} AND a.reg_creds_enc IS NULL AND a.session_epoch = ${job.sessionEpoch}
        AND NOT EXISTS (SELECT 1 FROM registry_sessions r WHERE r.account_id = a.id AND r.epoch = a.session_epoch
                          AND r.expires_at > now() + make_interval(secs => ${MARGIN_MS / 1000}))
      FOR SHARE OF a`;
    if (!account) return 0;
    const rows = await tx<{ id: string }[]>`
      WITH due AS (
        SELECT id FROM submissions
        WHERE scope_account_id = ${job.accountId} AND status = 'queued' AND reg_creds_enc IS NULL AND id <> ${job.id}
          AND (next_attempt_at IS NULL OR next_attempt_at <= now() + make_interval(secs => ${outcome.delayS}))
          AND (reg_error IS NULL OR reg_error ->> 'cod' = 'REG_CREDENTIALE_LIPSA')
        ORDER BY id FOR UPDATE SKIP LOCKED
      )
      UPDATE submissions s SET next_attempt_at = now() + make_interval(secs => ${putOffS}),
        reg_error = ${JSON.stringify(regError)}::jsonb, motiv = ${motiv}, updated_at = now()
      FROM due WHERE s.id = due.id
      RETURNING s.id`;
    return rows.length;
  });
  if (deferred > 0) {
    ctx.journal.write({ event: 'worker_credentials_wait', accountId: job.accountId, data: { amanate: deferred, next_attempt_in_s: Math.round(putOffS) } });
  }
}
