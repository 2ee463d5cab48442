import { AppError } from '../../errors';
import { sql } from 'drizzle-orm';
import type { Executor, OwnConnection } from '../../../db/client';
import type { AppContext } from '../../context';
import { REQUEST_ERROR_CODES, type RequestErrorCode } from '../../errors';
import { describeError } from '../../journal/describe-error';
import { LEASE_SPACE } from './stagings';

/**
 * Why a staging failed, as `import_batches.error` keeps it (JSON): the code and cause the
 * upload would have answered had it waited (the code gives the status), and the upload's
 * request id. Rows stored by earlier builds also hold that status; it is not read.
 */
interface StoredFailure {
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

/**
 * A batch still `staging` becomes `failed` with the failure, and loses every row staged so far
 * (a file is staged whole or not at all). False when it was no longer staging.
 */
async function markFailed(tx: Executor, batchId: number, failure: StoredFailure): Promise<boolean> {
  // The batch row first: its lock orders this after a preview that holds it.
  const updated = await tx.execute(sql`
    UPDATE import_batches SET status = 'failed', error = ${JSON.stringify(failure)}::jsonb, row_count = 0, derived_fp = NULL
    WHERE id = ${batchId} AND status = 'staging' RETURNING id`);
  if (updated.length === 0) return false;
  await tx.execute(sql`DELETE FROM import_rows WHERE batch_id = ${batchId}`);
  await tx.execute(sql`DELETE FROM import_row_blocks WHERE batch_id = ${batchId}`);
  await tx.execute(sql`DELETE FROM import_batch_vin_submissions WHERE batch_id = ${batchId}`);
  return true;
}

/**
 * Records a staging's failure on its batch (on the staging's own connection, which still holds
 * the lease) and in the journal. When even that fails (the database is gone), the batch stays
 * `staging` with its lease released: the next sweep of any server fails it
 * (sweepInterruptedStagings), or the next start.
 */
export async function failStaging(
  ctx: AppContext,
  own: Pick<OwnConnection, 'transaction'>,
  batch: { batchId: number; accountId: number },
  error: unknown,
  requestId: string | null,
): Promise<void> {
  const failure = failureOf(error, requestId);
  const expected = error instanceof AppError;
  ctx.journal.write({
    event: 'import_incarcare_esuata',
    level: expected ? 'warn' : 'error',
    requestId,
    accountId: batch.accountId,
    data: { batch_id: batch.batchId, cod: failure.cod, ...(expected ? {} : { error: describeError(error) }) },
  });
  try {
    await own.transaction((tx) => markFailed(tx, batch.batchId, failure));
  } catch (cleanup) {
    ctx.journal.write({
      event: 'import_incarcare_esuata',
      level: 'error',
      requestId,
      accountId: batch.accountId,
      data: { batch_id: batch.batchId, cleanup: describeError(cleanup) },
    });
  }
}

/**
 * Every batch left `staging` by a staging that is no longer running (its process died, or its
 * connection with the lease was lost: the lease is free) becomes `failed` and loses its rows. A
 * batch a live staging holds keeps its lease, and is left alone. Returns the ids failed.
 */
export async function failInterruptedStagings(ctx: AppContext): Promise<number[]> {
  const staging = await ctx.db.execute<{ id: number }>(sql`SELECT id FROM import_batches WHERE status = 'staging' ORDER BY id`);
  const failed: number[] = [];
  const failure: StoredFailure = { cod: 'IMPORT_INTRERUPT', cauza: 'Procesul care încărca fișierul s-a oprit înainte de final.', request_id: null };
  for (const { id } of staging) {
    await ctx.db.transaction(async (tx) => {
      const [lease] = await tx.execute<{ free: boolean }>(sql`SELECT pg_try_advisory_xact_lock(${LEASE_SPACE}, ${id}) AS free`);
      if (lease?.free && (await markFailed(tx, id, failure))) failed.push(id);
    });
  }
  if (failed.length > 0) ctx.journal.write({ event: 'import_incarcari_intrerupte', level: 'warn', data: { batch_ids: failed } });
  return failed;
}

/**
 * failInterruptedStagings every `everyMs` while the server runs, besides at its start: a batch
 * whose staging lost the database (a failover) or whose server died is failed by any live
 * server within that, instead of staying `staging` until a server starts. A sweep that cannot
 * reach the database does nothing; the next one tries again.
 */
export function sweepInterruptedStagings(ctx: AppContext, everyMs: number, found: (ids: number[]) => void): { stop(): Promise<void> } {
  let sweeping: Promise<void> | null = null;
  const timer = setInterval(() => {
    sweeping ??= failInterruptedStagings(ctx)
      .then(
        (ids) => (ids.length > 0 ? found(ids) : undefined),
        () => undefined,
      )
      .finally(() => (sweeping = null));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
