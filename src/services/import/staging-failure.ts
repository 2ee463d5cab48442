import { AppError } from '../../errors';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import { REQUEST_ERROR_CODES, type RequestErrorCode } from '../../errors';
import { describeError } from '../../journal/describe-error';
import { QUEUE_CHANNEL } from './queue';

/**
 * Why a staging failed, as `import_batches.error` keeps it (JSON): the code and cause the
 * upload would have answered had it waited (the code gives the status), and the upload's
 * request id. Rows stored by earlier builds also hold that status; it is not read.
 */
export interface StoredFailure {
  cod: RequestErrorCode;
  cauza: string;
  request_id: string | null;
}

/** The failure of a batch's staging, as the services hand it on. */
export interface StagingFailure {
  cod: RequestErrorCode;
  cauza: string;
  requestId: string | null;
}

function failureOf(error: unknown, requestId: string | null): StoredFailure {
  if (error instanceof AppError) return { cod: error.cod, cauza: error.cauza, request_id: requestId };
  return { cod: 'EROARE_INTERNA', cauza: 'Rândurile fișierului nu au putut fi salvate.', request_id: requestId };
}

/** The stored failure; anything unreadable reads as an interruption. */
export function readStagingFailure(stored: unknown): StagingFailure {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  return {
    cod: typeof s.cod === 'string' && (REQUEST_ERROR_CODES as string[]).includes(s.cod) ? (s.cod as RequestErrorCode) : 'IMPORT_INTRERUPT',
    cauza: typeof s.cauza === 'string' ? s.cauza : '',
    requestId: typeof s.request_id === 'string' ? s.request_id : null,
  };
}

/** Removes what a staging wrote of a batch: a file is staged whole or not at all. */
async function removeRows(tx: Executor, batchId: number): Promise<void> {
  await tx.execute(sql`DELETE FROM import_rows WHERE batch_id = ${batchId}`);
  await tx.execute(sql`DELETE FROM import_row_blocks WHERE batch_id = ${batchId}`);
  await tx.execute(sql`DELETE FROM import_batch_vin_submissions WHERE batch_id = ${batchId}`);
}

/** Only under claim `claim` of its file (null: whoever holds it), so a stager that lost its claim changes nothing. */
const underClaim = (batchId: number, claim: number | null) =>
  claim === null ? sql`TRUE` : sql`EXISTS (SELECT 1 FROM import_uploads u WHERE u.batch_id = ${batchId} AND u.claims = ${claim})`;

/**
 * A batch still `staging` becomes `failed` with the failure, and loses every row staged so far.
 * False when it was no longer staging (or no longer under `claim`).
 */
export async function markFailed(tx: Executor, batchId: number, failure: StoredFailure, claim: number | null): Promise<boolean> {
  // The batch row first: its lock orders this after a preview that holds it.
  const updated = await tx.execute(sql`
    UPDATE import_batches SET status = 'failed', error = ${JSON.stringify(failure)}::jsonb, row_count = 0, derived_fp = NULL
    WHERE id = ${batchId} AND status IN ('queued', 'staging') AND ${underClaim(batchId, claim)} RETURNING id`);
  if (updated.length === 0) return false;
  await removeRows(tx, batchId);
  // Nothing of the file is kept once nothing of it can be committed: its bytes go with its rows.
  await tx.execute(sql`DELETE FROM import_upload_pieces WHERE batch_id = ${batchId}`);
  return true;
}

/** The failure a stager records when a file's staging was taken up too often (its stagers died each time). */
export function interruptedFailure(claims: number): StoredFailure {
  return { cod: 'IMPORT_INTRERUPT', cauza: `Procesele care încărcau fișierul s-au oprit de ${claims} ori înainte de final.`, request_id: null };
}

/**
 * Records a staging's failure on its batch (under the stager's claim) and in the journal.
 * When even that fails (the database is gone), the batch stays `staging`: its heartbeat stops,
 * and a stager takes it up again once the database is back.
 */
export async function failStaging(ctx: AppContext, batch: { batchId: number; accountId: number; claim: number }, error: unknown, requestId: string | null): Promise<void> {
  const failure = failureOf(error, requestId);
  const expected = error instanceof AppError;
  ctx.journal.write({
    event: 'import_incarcare_esuata',
    level: expected ? 'warn' : 'error',
    requestId,
    accountId: batch.accountId,
    data: { batch_id: batch.batchId, cod: failure.cod, ...(expected ? {} : { error: describeError(error) }) },
  });
  await ctx.db.transaction((tx) => markFailed(tx, batch.batchId, failure, batch.claim));
}

/**
 * A batch back in the queue, without the rows its staging wrote and without its claim, which
 * does not count as a try: its stager stopped (SIGTERM) and another stager, or this one's
 * next start, stages it from the start.
 */
export async function requeue(ctx: AppContext, batch: { batchId: number; claim: number }): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const updated = await tx.execute(sql`
      UPDATE import_batches SET status = 'queued', row_count = 0 WHERE id = ${batch.batchId} AND status = 'staging' AND ${underClaim(batch.batchId, batch.claim)} RETURNING id`);
    if (updated.length === 0) return;
    await removeRows(tx, batch.batchId);
    await tx.execute(sql`UPDATE import_uploads SET claimed_by = NULL, heartbeat_at = NULL, claims = claims - 1 WHERE batch_id = ${batch.batchId}`);
    await tx.execute(sql`SELECT pg_notify(${QUEUE_CHANNEL}, '')`);
  });
}

/** Rows staged by an earlier claim of a file taken up again: it is staged from the start. */
export { removeRows as removeStagedRows };
