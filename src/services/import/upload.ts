import { AppError } from '../../errors';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { preferRegistryCodes } from '../../domain/registry-code-column';
import { openSpreadsheet } from '../../import/open';
import { loadResolutionContext } from '../operations/context';
import { importPurgeAfter, loadBatch, type FileMeta } from './batch';
import { fingerprint } from './fingerprint';
import { importLimits } from './limits';
import { initialMappingState } from './mapping-store';
import { createBlockSealer } from './raw-blocks';
import { newVinKey, readingsWatermark, vinHasher } from './readings';
import { interrupted, stageRows, type Staging } from './row-writer';
import { nothingStaged, walkFile, type FileWalk, type SheetSummary } from './sheet-walk';
import { failStaging } from './staging-failure';
import { acquireLease, type StagingLease } from './stagings';

/**
 * The batch's row as a staging transaction leaves it: rows staged and sheets read so far, and
 * when the file is done, `staged` with what the rows were derived against (fingerprint.ts).
 * Only a batch still `staging` is written: one failed meanwhile (by a server start that took
 * it for abandoned) ends this staging.
 */
async function recordProgress(exec: Executor, staging: Staging, summaries: readonly SheetSummary[], complete: boolean): Promise<void> {
  const progress = { rowCount: staging.staged, sheets: summaries };
  const [row] = await exec
    .update(importBatches)
    .set(complete ? { ...progress, status: 'staged', derivedFp: fingerprint(staging.setting, staging.resolution, staging.now, staging.watermark) } : progress)
    .where(and(eq(importBatches.id, staging.batchId), eq(importBatches.status, 'staging')))
    .returning({ id: importBatches.id });
  if (!row) throw interrupted('Importul a fost marcat eșuat în timpul încărcării.');
}

/**
 * One transaction: the batch, with its mapping judged on the header and the first rows'
 * values, and its first GATEWAY_IMPORT_FIRST_ROWS rows (at least the sample). A file that
 * ends there is `staged` as it commits. A longer one is committed `staging`, under a lease (stagings.ts)
 * taken before it becomes visible, and the rest of the walk is left to `stageRest`.
 */
async function stageFirstPart(ctx: AppContext, accountId: number, filename: string | null, fileMeta: FileMeta, walk: FileWalk) {
  const held: { lease: StagingLease | null } = { lease: null };
  try {
    const staging = await ctx.db.transaction(async (exec) => {
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
      const now = ctx.clock();
      const purgeAfter = importPurgeAfter(now);
      const vinKey = newVinKey(ctx.keyring);
      const [row] = await exec
        .insert(importBatches)
        .values({
          accountId,
          filename,
          header,
          headerSignature: signature,
          fileMeta,
          columnMapping: mappingState,
          vinKeyEnc: vinKey.stored,
          status: 'staging',
          purgeAfter,
          createdAt: now,
        })
        .returning({ id: importBatches.id });
      const staging: Staging = {
        accountId,
        batchId: row!.id,
        purgeAfter,
        setting: { accountId, mapping: mappingState.mapping, date1904: fileMeta.date1904 },
        resolution,
        now,
        vinKey: vinKey.key,
        vinHmac: vinHasher(vinKey.key),
        watermark,
        maxRows: importLimits(ctx.config).maxRows,
        staged: 0,
        blocks: createBlockSealer(ctx.keyring),
      };
      await stageRows(exec, staging, walk, Math.max(ctx.config.GATEWAY_IMPORT_FIRST_ROWS, sample.length));
      if (staging.staged === 0) throw nothingStaged(walk.summaries, true);
      const more = await walk.more();
      if (more) held.lease = await acquireLease(ctx.sql, staging.batchId);
      await recordProgress(exec, staging, walk.summaries, !more);
      return staging;
    });
    return { staging, lease: held.lease };
  } catch (error) {
    await held.lease?.release();
    throw error;
  }
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
 * The rows after the first part, in one transaction of their own: COPY and the end of it
 * cost as when the upload staged everything (a transaction per slice of rows waited for
 * Postgres at each), and the preview shows the first part until the batch is `staged`. Any
 * failure (the file, the row limit, the database, the server stopping) rolls it back, fails
 * the batch and removes its first rows (staging-failure.ts), then rejects.
 */
async function stageRest(ctx: AppContext, staging: Staging, walk: FileWalk, lease: StagingLease, signal: AbortSignal, requestId: string | null): Promise<void> {
  const started = performance.now();
  const progress = progressWriter(ctx, staging.batchId);
  try {
    const thread = await ctx.db.transaction(async (exec) => {
      const background = { progress: progress.report, threadAfter: ctx.config.GATEWAY_IMPORT_THREAD_AFTER };
      const report = await stageRows(exec, staging, walk, Infinity, { signal, background });
      await progress.settled();
      await recordProgress(exec, staging, walk.summaries, true);
      return report;
    });
    ctx.journal.write({
      event: 'import_incarcat',
      requestId,
      accountId: staging.accountId,
      data: {
        batch_id: staging.batchId,
        rows: staging.staged,
        ms: Math.round(performance.now() - started),
        // The rows its chunk thread staged; a thread that failed left its chunks to the event loop.
        ...(thread ? { rows_in_thread: thread.rows, ...(thread.failure ? { thread_failure: thread.failure } : {}) } : {}),
      },
    });
  } catch (error) {
    await progress.settled();
    await failStaging(ctx, staging, error, requestId);
    throw error;
  } finally {
    await walk.close();
    await lease.release();
  }
}

/**
 * Stages the chosen sheet(s) of an upload as a batch. The first rows are staged before it
 * answers; a file with more answers `staging` at once, and the rest is staged in the
 * background (ctx.importStagings; or here, before answering, when as many run already). From
 * the user's side a file is still staged whole or not at all: until the batch is `staged`
 * nothing but the preview takes it, and a staging that fails leaves a `failed` batch without
 * rows. The file's bytes are held by its reader until the last row is read.
 */
export async function createImportBatch({
  ctx,
  actor,
  filename,
  bytes,
  sheets: chosen,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  filename: string | null;
  bytes: Buffer;
  sheets: string[];
  requestId: string;
}) {
  const source = await openSpreadsheet(bytes, importLimits(ctx.config));
  const unknown = chosen.filter((name) => !source.sheets.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new AppError('IMPORT_FOAIE', `O foaie aleasă în câmpul sheet nu există în fișier; foile fișierului: ${source.sheets.map((s) => s.name).join(', ')}.`);
  }
  const fileMeta: FileMeta = { kind: source.kind, encoding: source.encoding ?? null, delimiter: source.delimiter ?? null, date1904: source.date1904, size: bytes.length };
  const accountId = actor.accountId;
  const walk = walkFile(source, chosen);
  const { staging, lease } = await stageFirstPart(ctx, accountId, filename, fileMeta, walk).catch(async (error: unknown) => {
    await walk.close();
    throw error;
  });
  if (lease) {
    const run = ctx.importStagings.run((signal) => stageRest(ctx, staging, walk, lease, signal, requestId));
    if (!run.background) await run.done;
  }
  return loadBatch(ctx.db, accountId, staging.batchId);
}
