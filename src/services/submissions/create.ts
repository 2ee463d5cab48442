import { sql } from 'drizzle-orm';
import type { AppContext, Principal } from '../../context';
import { withTransaction } from '../../context';
import type { Classification } from '../../domain/classify';
import { idempotencyKey, legacyIdempotencyKey } from '../../domain/idempotency';
import type { SubmissionInput } from '../../domain/submission-input';
import { contentError, readRegError, type ContentError } from '../../errors';
import { classifyForAccount } from './classify';
import { purgeAfterFor } from './retention';

export interface SubmissionResult {
  submission_id: number | null;
  status: string;
  erori: ContentError[];
  nemapate: string[];
  motiv: string | null;
  duplicate: boolean;
  reactivated: boolean;
}

type StoredRow = {
  id: number;
  status: string;
  erori: ContentError[] | null;
  nemapate: string[] | null;
  motiv: string | null;
  reg_error: unknown;
  inserted: boolean;
};

export async function createSubmission({
  ctx,
  principal,
  input,
  requestId,
}: {
  ctx: AppContext;
  principal: Principal;
  input: SubmissionInput;
  requestId: string;
}): Promise<SubmissionResult> {
  const accountId = principal.accountId;
  const verdict = await classifyForAccount({ ctx, exec: ctx.db, accountId, input });
  for (const hit of verdict.ruleHits) {
    ctx.journal.write({ event: 'text_rule_hit', requestId, accountId, data: { ...hit } });
  }

  if (verdict.status === 'error') {
    // Rejected by on_unmapped_error: nothing is stored.
    return { submission_id: null, status: 'error', erori: verdict.erori, nemapate: verdict.nemapate, motiv: verdict.motiv, duplicate: false, reactivated: false };
  }

  const credsEnc = input.reg_credentials ? ctx.keyring.encrypt(JSON.stringify(input.reg_credentials)) : null;
  const row = await insertOnce(ctx, accountId, verdict, credsEnc, requestId);
  if (row.inserted) {
    return { submission_id: row.id, status: row.status, erori: verdict.erori, nemapate: verdict.nemapate, motiv: verdict.motiv, duplicate: false, reactivated: false };
  }
  if (row.status === 'error') {
    const reactivated = await reactivate(ctx, accountId, row.id, credsEnc);
    if (reactivated) {
      const previous = readRegError(row.reg_error);
      const cauza = previous ? `Eroarea anterioară: ${previous.problema} ${previous.cauza}`.trim() : 'Eroarea anterioară nu a fost păstrată.';
      return {
        submission_id: row.id,
        status: 'queued',
        erori: [contentError('REG_EROARE', 'reg_error', cauza)],
        nemapate: row.nemapate ?? [],
        motiv: 'Trimitere reactivată: înregistrarea era în eroare și a fost repusă în coadă.',
        duplicate: true,
        reactivated: true,
      };
    }
  }
  // A duplicate of a submission not in error: nothing changes; report what is stored.
  const current = row.status === 'error' ? await currentStatus(ctx, row.id) : row;
  return {
    submission_id: row.id,
    status: current.status,
    erori: current.erori ?? [],
    nemapate: current.nemapate ?? [],
    motiv: current.motiv ?? null,
    duplicate: true,
    reactivated: false,
  };
}

/**
 * One statement inserts the row unless the same content (new key, or the older key form of
 * rows stored before account scoping) is already there. Concurrent posts of the same content
 * meet at the unique key; the losers read the winner's row.
 */
async function insertOnce(ctx: AppContext, accountId: number, verdict: Classification, credsEnc: string | null, requestId: string): Promise<StoredRow> {
  const key = idempotencyKey(accountId, verdict.content);
  const legacy = legacyIdempotencyKey(verdict.content);
  const { content } = verdict;
  const now = ctx.clock();
  const purgeAfter = purgeAfterFor(verdict.status, now);
  const rows = await ctx.db.execute<StoredRow>(sql`
    WITH existing AS (
      SELECT id, status, erori, nemapate, motiv, reg_error FROM submissions
      WHERE idempotency_key IN (${key}, ${legacy}) AND coalesce(account_id, 1) = ${accountId}
      LIMIT 1
    ), ins AS (
      INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie,
                               prestatii, erori, nemapate, motiv, reg_creds_enc, purge_after, request_id)
      SELECT ${accountId}, ${verdict.status}, ${JSON.stringify(content)}::jsonb, ${key}, ${content.vin}, ${content.nrInm},
             ${content.dataPrestatie}, ${JSON.stringify(verdict.prestatii)}::jsonb, ${JSON.stringify(verdict.erori)}::jsonb,
             ${JSON.stringify(verdict.nemapate)}::jsonb, ${verdict.motiv}, ${credsEnc}, ${purgeAfter?.toISOString() ?? null}::timestamptz, ${requestId}
      WHERE NOT EXISTS (SELECT 1 FROM existing)
      ON CONFLICT (idempotency_key) DO NOTHING
      RETURNING id, status, erori, nemapate, motiv, reg_error
    )
    SELECT *, true AS inserted FROM ins
    UNION ALL
    SELECT *, false AS inserted FROM existing`);
  const found = rows[0];
  if (found) return { ...found, id: Number(found.id) };
  // Lost a race with a concurrent insert of the same content: it is committed now.
  const [winner] = await ctx.db.execute<StoredRow>(
    sql`SELECT id, status, erori, nemapate, motiv, reg_error, false AS inserted FROM submissions WHERE idempotency_key = ${key}`,
  );
  if (!winner) throw new Error('idempotency conflict without a stored row');
  return { ...winner, id: Number(winner.id) };
}

/**
 * A duplicate of an `error` submission puts it back in the queue: compare-and-set on
 * status='error', so two concurrent duplicates reactivate it once. New credentials go to
 * the submission and the account, and the account's session epoch moves so the worker
 * drops its cached registry session.
 */
async function reactivate(ctx: AppContext, accountId: number, id: number, credsEnc: string | null): Promise<boolean> {
  return withTransaction(ctx, undefined, async (tx) => {
    const updated = await tx.execute(sql`
      UPDATE submissions SET status = 'queued', reg_creds_enc = coalesce(${credsEnc}, reg_creds_enc),
        attempts = 0, next_attempt_at = NULL, purge_after = NULL, worker_id = NULL, updated_at = now()
      WHERE id = ${id} AND status = 'error' RETURNING id`);
    if (updated.length === 0) return false;
    await tx.execute(sql`
      UPDATE accounts SET session_epoch = session_epoch + 1, reg_creds_enc = coalesce(${credsEnc}, reg_creds_enc)
      WHERE id = ${accountId}`);
    return true;
  });
}

async function currentStatus(ctx: AppContext, id: number) {
  const [row] = await ctx.db.execute<StoredRow>(sql`SELECT id, status, erori, nemapate, motiv FROM submissions WHERE id = ${id}`);
  if (!row) throw new Error(`submission ${id} vanished`);
  return row;
}
