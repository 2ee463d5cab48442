import { AppError } from '../../errors';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import type { AppContext } from '../../context';
import { preferRegistryCodes } from '../../domain/registry-code-column';
import { openSpreadsheet } from '../../readers/open';
import { loadResolutionContext } from '../operations/context';
import type { FileMeta } from './batch';
import { fingerprint } from './fingerprint';
import { importLimits } from './limits';
import { initialMappingState } from './mapping-store';
import { createBlockSealer } from './raw-blocks';
import { newVinKey, readingsWatermark, vinHasher } from './readings';
import { stageRows, type Staging } from './row-writer';
import { claimLost } from './staging-errors';
import { nothingStaged, walkFile, type FileWalk, type SheetSummary } from './sheet-walk';

/** A file a stager claimed (stager.ts): its batch, and the claim this staging holds. */
export interface ClaimedFile {
  batchId: number;
  accountId: number;
  /** The claim's number: the batch's writes check it, so a stager that lost its claim writes nothing more. */
  claim: number;
  bytes: Buffer;
  sheets: string[];
  /** A .dbf table's code page chosen by the clerk, over its header's. */
  codePage: number | null;
  filename: string | null;
  requestId: string | null;
  purgeAfter: Date;
}

/**
 * The advisory-lock space in which servers of earlier releases (before stagers) leased the
 * stagings they ran. Their sweep fails a `staging` batch whose lease it can take: during a
 * rolling upgrade it would fail a stager's batch, so each staging transaction holds the lease.
 * Migration 0022 fails only the batches whose lease is free, for the same reason.
 */
const RELEASE_LEASE_SPACE = 727_012;

const holdReleaseLease = (exec: Executor, batchId: number) => exec.execute(sql`SELECT pg_advisory_xact_lock(${RELEASE_LEASE_SPACE}, ${batchId})`);

/** The claim is still this staging's (not taken over by another stager after a late heartbeat). */
const stillClaimed = (file: ClaimedFile) => sql`EXISTS (SELECT 1 FROM import_uploads u WHERE u.batch_id = ${file.batchId} AND u.claims = ${file.claim})`;

/**
 * The batch's row as a staging transaction leaves it: rows staged and sheets read so far, and
 * when the file is done, `staged` with what the rows were derived against (fingerprint.ts).
 * Only a batch still `staging` under this claim is written: one failed or taken over meanwhile
 * ends this staging, and its transaction rolls back.
 */
async function recordProgress(
  exec: Executor,
  file: ClaimedFile,
  staging: Staging,
  summaries: readonly SheetSummary[],
  complete: boolean,
  extra: Partial<typeof importBatches.$inferInsert> = {},
): Promise<void> {
  const progress = { ...extra, rowCount: staging.staged, sheets: summaries };
  const [row] = await exec
    .update(importBatches)
    .set(complete ? { ...progress, status: 'staged', derivedFp: fingerprint(staging.setting, staging.resolution, staging.now, staging.watermark) } : progress)
    .where(and(eq(importBatches.id, staging.batchId), eq(importBatches.status, 'staging'), stillClaimed(file)))
    .returning({ id: importBatches.id });
  if (!row) throw claimLost();
}

/**
 * The first transaction: the batch's header and its mapping, judged on the header and the
 * first rows' values, and its first GATEWAY_IMPORT_FIRST_ROWS rows (at least the sample), so
 * the screen and the preview show rows while the rest is staged. A file that ends there is
 * `staged` as it commits.
 */
async function stageFirstPart(ctx: AppContext, file: ClaimedFile, fileMeta: FileMeta, walk: FileWalk, signal: AbortSignal) {
  const { accountId } = file;
  return ctx.db.transaction(async (exec) => {
    await holdReleaseLease(exec, file.batchId);
    const resolution = await loadResolutionContext(ctx, exec, accountId, 'all');
    // Before any reading is looked up: a submission stored from now on is looked at again later.
    const watermark = await readingsWatermark(exec, accountId);
    const start = await walk.start();
    if (!start) throw nothingStaged(walk.summaries, false);
    const { header, signature, sample } = start;
    let mappingState = await initialMappingState(exec, accountId, header, signature);
    if (mappingState.source === 'suggested') {
      const judged = preferRegistryCodes(header, mappingState.mapping, sample, (code) => resolution.nomenclator.has(code.toUpperCase()));
      if (judged.observatii.length > 0) mappingState = { ...mappingState, mapping: judged.mapping, observatii: judged.observatii };
    }
    const vinKey = newVinKey(ctx.keyring);
    const staging: Staging = {
      accountId,
      batchId: file.batchId,
      purgeAfter: file.purgeAfter,
      setting: { accountId, mapping: mappingState.mapping, date1904: fileMeta.date1904, header },
      resolution,
      now: ctx.clock(),
      vinKey: vinKey.key,
      vinHmac: vinHasher(vinKey.key),
      watermark,
      maxRows: importLimits(ctx.config).maxRows,
      staged: 0,
      blocks: createBlockSealer(ctx.keyring),
    };
    await stageRows(exec, staging, walk, Math.max(ctx.config.GATEWAY_IMPORT_FIRST_ROWS, sample.length), { signal });
    if (staging.staged === 0) throw nothingStaged(walk.summaries, true);
    const more = await walk.more();
    await recordProgress(exec, file, staging, walk.summaries, !more, { header, headerSignature: signature, fileMeta, columnMapping: mappingState, vinKeyEnc: vinKey.stored });
    return { staging, more };
  });
}

/**
 * How far the rest of a file got, for GET /v1/import/{id} and the preview (`rows_staged`),
 * which cannot see into its transaction: written beside it, on the pool, one write at a time
 * and never waited for (a preview holding the batch row delays a write, not the staging).
 */
function progressWriter(ctx: AppContext, batchId: number) {
  let writing: Promise<void> | null = null;
  return {
    report(staged: number) {
      writing ??= ctx.db
        .update(importBatches)
        .set({ rowCount: staged })
        .where(and(eq(importBatches.id, batchId), eq(importBatches.status, 'staging')))
        .then(
          () => undefined,
          () => undefined, // progress only: the staging goes on
        )
        .finally(() => (writing = null));
    },
    settled: async () => {
      await writing;
    },
  };
}

/**
 * Stages a claimed file as its batch's rows: the first rows in a transaction of their own
 * (the preview shows them while the rest is staged), then the rest in one more transaction
 * (COPY and its end cost as one upload; a transaction per slice waited for Postgres at each),
 * which makes the batch `staged`. Any failure rejects, leaving the first part's rows for the
 * caller (stager.ts) to remove with the batch's failure, or with its return to the queue.
 * Returns the rows staged.
 */
export async function stageFile(ctx: AppContext, file: ClaimedFile, signal: AbortSignal): Promise<number> {
  const limits = importLimits(ctx.config);
  const source = await openSpreadsheet(file.bytes, file.codePage === null ? limits : { ...limits, codePage: file.codePage });
  const unknown = file.sheets.filter((name) => !source.sheets.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new AppError('IMPORT_FOAIE', `O foaie aleasă în câmpul sheet nu există în fișier; foile fișierului: ${source.sheets.map((s) => s.name).join(', ')}.`);
  }
  const fileMeta: FileMeta = {
    kind: source.kind,
    encoding: source.encoding ?? null,
    delimiter: source.delimiter ?? null,
    date1904: source.date1904,
    size: file.bytes.length,
    ...(source.dbf ? { dbf: source.dbf } : {}),
  };
  const walk = walkFile(source, file.sheets);
  const progress = progressWriter(ctx, file.batchId);
  try {
    const { staging, more } = await stageFirstPart(ctx, file, fileMeta, walk, signal);
    if (!more) return staging.staged;
    await ctx.db.transaction(async (exec) => {
      await holdReleaseLease(exec, file.batchId);
      await stageRows(exec, staging, walk, Infinity, { signal, progress: progress.report });
      await recordProgress(exec, file, staging, walk.summaries, true);
    });
    return staging.staged;
  } finally {
    await walk.close();
    await progress.settled();
  }
}
