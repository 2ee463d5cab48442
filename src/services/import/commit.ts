import { AppError } from '../../errors';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { importAttestations, importBatches } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { COMMITTED_STATES } from '../../domain/import-state';
import { contentColumns, insertImported, verdictColumns } from '../submissions/store';
import { assertStaged, loadBatch, type LoadedBatch } from './batch';
import { refreshDerived, type Derivation } from './freshness';
import { readRow, stagedRowsAt } from './rows';
import { batchSummary, inStates, rowOutcomes } from './states';

const INSERT_CHUNK = 500;

export interface CommitInput {
  n_confirmed: number;
  rows_hash: string;
}

/**
 * Inserts one chunk of rows as submissions, exactly as POST /v1/prezentari stores them (same
 * classification, same key); a key already taken (a concurrent post of the same content)
 * is skipped by the unique key. Returns how many were inserted, by status.
 */
async function insertChunk(ctx: AppContext, tx: Executor, batch: LoadedBatch, derivation: Derivation, indexes: number[], requestId: string) {
  const staged = await stagedRowsAt(tx, ctx.keyring, batch.id, indexes);
  const values = staged.map((row) => {
    const { verdict, key } = readRow(row, batch, derivation.resolution, derivation.now, ctx.keyring);
    // An included needs_review row is content-valid and resolved: it queues like any other.
    const status = verdict.status === 'needs_data' ? 'needs_data' : 'queued';
    return {
      accountId: batch.accountId,
      batchId: batch.id,
      rowIndex: row.row_index,
      requestId,
      createdAt: derivation.now,
      updatedAt: derivation.now,
      ...contentColumns(verdict.content, key),
      ...verdictColumns(verdict, derivation.now, status),
    };
  });
  if (values.length === 0) return [];
  const inserted = await insertImported(tx, values);
  await tx.execute(sql`
    UPDATE import_rows r SET submission_id = v.id
    FROM jsonb_to_recordset(${JSON.stringify(inserted)}::jsonb) AS v("rowIndex" int, id bigint)
    WHERE r.batch_id = ${batch.id} AND r.row_index = v."rowIndex"`);
  return inserted;
}

/**
 * The hard gate: the number of rows to commit and the `rows_hash` the user confirmed must both
 * match the batch as it is now, or nothing is written. Then, in one transaction: the ready and
 * the invalid rows become submissions (needs_mapping, held-for-review, already stored and
 * repeated rows do not), the batch is closed and the attestation stored.
 */
export async function commitImportBatch({
  ctx,
  actor,
  batchId,
  input,
  confirmedBy,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  input: CommitInput;
  confirmedBy: string;
  requestId: string;
}) {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
    assertStaged(batch);
    // Derived columns brought up to date in this transaction, so the gate and the inserts
    // judge the same rows.
    const derivation = await refreshDerived(ctx, tx, batch);
    const summary = await batchSummary(tx, accountId, batch.id);
    if (input.n_confirmed !== summary.nToCommit) {
      throw new AppError('IMPORT_CONFIRMARE_NUMAR', `Ați confirmat ${input.n_confirmed} rânduri; acum sunt ${summary.nToCommit} de trimis.`);
    }
    if (input.rows_hash !== summary.rowsHash) {
      throw new AppError('IMPORT_CONFIRMARE_HASH', 'rows_hash trimis nu corespunde rândurilor actuale (editări, mapări sau trimiteri noi după previzualizare).');
    }

    const committable = (await rowOutcomes(tx, accountId, batch.id, inStates(COMMITTED_STATES))).map((o) => o.rowIndex);
    const stored = { queued: 0, needs_data: 0 };
    for (let i = 0; i < committable.length; i += INSERT_CHUNK) {
      for (const row of await insertChunk(ctx, tx, batch, derivation, committable.slice(i, i + INSERT_CHUNK), requestId)) {
        stored[row.status as keyof typeof stored] += 1;
      }
    }
    await tx.update(importBatches).set({ status: 'committed', committedAt: derivation.now }).where(eq(importBatches.id, batch.id));
    const [attestation] = await tx
      .insert(importAttestations)
      .values({ batchId: batch.id, accountId, rowsHash: summary.rowsHash, nConfirmed: input.n_confirmed, confirmedBy, createdAt: derivation.now })
      .returning();
    const inserted = stored.queued + stored.needs_data;
    ctx.journal.write({ event: 'import_confirmat', requestId, accountId, data: { batch_id: batch.id, n_confirmed: input.n_confirmed, inserted, counts: summary.counts } });
    return {
      batchId: batch.id,
      inserted,
      byStatus: stored,
      // Rows that met an equal submission stored between the check and the insert.
      skippedConflict: committable.length - inserted,
      notCommitted: summary.total - committable.length,
      counts: summary.counts,
      attestation: attestation!,
    };
  });
}

export type ImportCommit = Awaited<ReturnType<typeof commitImportBatch>>;
