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
import { analyzeCommitted } from './readings';
import { readRows, stagedRowsAt, type RowReading } from './rows';
import { itemCode, type CanonicalContent, type CanonicalItem } from '../../domain/canonical';
import { classifyContent } from '../../domain/classify';
import { CELL_ERROR_CODES } from '../../domain/import-row';
import { idempotencyKey } from '../../domain/idempotency';
import { batchSummary, inStates, rowOutcomes } from './states';

const INSERT_CHUNK = 500;

const rowsText = (n: number) => (n === 1 ? 'un rând' : `${n} rânduri`);

export interface CommitInput {
  n_confirmed: number;
  rows_hash: string;
}

/**
 * One visit's committed lines as the one submission they make: the first line's vehicle and date
 * (its plate, or the first line's that has one), the operations of every line, each workshop code
 * once, classified and keyed exactly as POST /v1/prezentari would (a line alone is its own post).
 */
function visitContent(readings: readonly RowReading[]): CanonicalContent {
  const head = readings[0]!;
  const items = new Map<string, CanonicalItem>();
  for (const r of readings) for (const item of r.verdict.content.prestatii) if (!items.has(itemCode(item))) items.set(itemCode(item), item);
  const nrInm = readings.find((r) => r.verdict.content.nrInm)?.verdict.content.nrInm ?? head.verdict.content.nrInm;
  return { ...head.verdict.content, nrInm, prestatii: [...items.values()] };
}

/**
 * Inserts one chunk of visits as submissions, exactly as POST /v1/prezentari stores them (same
 * classification, same key), one per visit at its first line's index; every line of the visit
 * points to it. A key already taken (a concurrent post of the same content) is skipped by the
 * unique key. Returns what was inserted, by status.
 */
async function insertChunk(ctx: AppContext, tx: Executor, batch: LoadedBatch, derivation: Derivation, visits: number[][], requestId: string) {
  const staged = await stagedRowsAt(tx, ctx.keyring, batch.id, visits.flat());
  const readingOf = new Map((await readRows(staged, batch, derivation.resolution, derivation.now, ctx.keyring)).map((r) => [r.rowIndex, r]));
  const headOf = new Map<number, number>();
  const values = visits.map((lines) => {
    const readings = lines.map((i) => readingOf.get(i)!);
    for (const i of lines) headOf.set(i, lines[0]!);
    // A line alone is its own post: readRow has classified and keyed it already.
    const [only] = readings.length === 1 ? readings : [];
    const content = only ? only.verdict.content : visitContent(readings);
    const verdict = only
      ? only.verdict
      : classifyContent(content, derivation.resolution, {
          rejectUnmapped: false,
          now: derivation.now,
          found: readings.flatMap((r) => r.verdict.erori.filter((e) => CELL_ERROR_CODES.has(e.cod))),
        });
    // An included needs_review visit is content-valid and resolved: it queues like any other.
    const status = verdict.status === 'needs_data' ? 'needs_data' : 'queued';
    return {
      accountId: batch.accountId,
      batchId: batch.id,
      rowIndex: lines[0]!,
      requestId,
      createdAt: derivation.now,
      updatedAt: derivation.now,
      ...contentColumns(content, only ? only.key : idempotencyKey(batch.accountId, content)),
      ...verdictColumns(verdict, derivation.now, status),
    };
  });
  if (values.length === 0) return [];
  const inserted = await insertImported(tx, values);
  const idOf = new Map(inserted.map((r) => [r.rowIndex, r.id]));
  const links = [...headOf].flatMap(([rowIndex, head]) => (idOf.has(head) ? [{ rowIndex, id: idOf.get(head) }] : []));
  await tx.execute(sql`
    UPDATE import_rows r SET submission_id = v.id
    FROM jsonb_to_recordset(${JSON.stringify(links)}::jsonb) AS v("rowIndex" int, id bigint)
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
      throw new AppError(
        'IMPORT_CONFIRMARE_NUMAR',
        `Ați confirmat ${rowsText(input.n_confirmed)}; acum ${summary.nToCommit === 1 ? 'este un rând' : `sunt ${rowsText(summary.nToCommit)}`} de trimis.`,
      );
    }
    if (input.rows_hash !== summary.rowsHash) {
      throw new AppError('IMPORT_CONFIRMARE_HASH', 'rows_hash trimis nu corespunde rândurilor actuale (editări, mapări sau trimiteri noi după previzualizare).');
    }

    const committable = await rowOutcomes(tx, accountId, batch.id, inStates(COMMITTED_STATES));
    const visits = new Map<number, number[]>();
    for (const o of committable) {
      const head = o.visit?.head ?? o.rowIndex;
      const lines = visits.get(head);
      if (lines) lines.push(o.rowIndex);
      else visits.set(head, [o.rowIndex]);
    }
    const groups = [...visits.values()];
    const stored = { queued: 0, needs_data: 0 };
    for (let i = 0; i < groups.length; i += INSERT_CHUNK) {
      for (const row of await insertChunk(ctx, tx, batch, derivation, groups.slice(i, i + INSERT_CHUNK), requestId)) {
        stored[row.status as keyof typeof stored] += 1;
      }
    }
    await analyzeCommitted(tx, stored.queued + stored.needs_data);
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
      // Visits that met an equal submission stored between the check and the insert.
      skippedConflict: groups.length - inserted,
      notCommitted: summary.total - committable.length,
      counts: summary.counts,
      attestation: attestation!,
    };
  });
}

export type ImportCommit = Awaited<ReturnType<typeof commitImportBatch>>;
