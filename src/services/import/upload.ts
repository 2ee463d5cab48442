import { AppError } from '../../errors';
import { and, eq } from 'drizzle-orm';
import { isLocalDatabase, lowerBackendPriority } from '../../../db/backend-priority';
import type { Executor, OwnConnection } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import { actorLabel, type Actor, type AppContext } from '../../context';
import { preferRegistryCodes } from '../../domain/registry-code-column';
import { openSpreadsheet } from '../../import/open';
import { loadResolutionContext } from '../operations/context';
import { importPurgeAfter, loadBatch, type FileMeta } from './batch';
import { fingerprint } from './fingerprint';
import { importLimits } from './limits';
import { initialMappingState } from './mapping-store';
import { createBlockSealer } from './raw-blocks';
import { newVinKey, readingsWatermark, vinHasher } from './readings';
import type { UploadedFile } from './rest-thread';
import { stageRows, type Staging } from './row-writer';
import { interrupted } from './staging-errors';
import { nothingStaged, walkFile, type FileWalk, type SheetSummary } from './sheet-walk';
import { failStaging } from './staging-failure';
import { releaseLease, takeLease, type AdmittedUpload } from './stagings';

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
 * One transaction on the upload's own connection: the batch, with its mapping judged on the
 * header and the first rows' values, and its first GATEWAY_IMPORT_FIRST_ROWS rows (at least the
 * sample). A file that ends there is `staged` as it commits. A longer one is committed
 * `staging`, under a lease (stagings.ts) taken before it becomes visible, and the rest of the
 * walk is left to `stageRest`.
 */
async function stageFirstPart(ctx: AppContext, own: OwnConnection, actor: Actor, filename: string | null, fileMeta: FileMeta, walk: FileWalk, signal: AbortSignal) {
  const { accountId } = actor;
  return own.transaction(async (exec) => {
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
        createdBy: actorLabel(actor),
        purgeAfter,
        createdAt: now,
      })
      .returning({ id: importBatches.id });
    const staging: Staging = {
      accountId,
      batchId: row!.id,
      purgeAfter,
      setting: { accountId, mapping: mappingState.mapping, date1904: fileMeta.date1904, header },
      resolution,
      now,
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
    await recordProgress(exec, staging, walk.summaries, !more);
    const batch = await loadBatch(exec, accountId, staging.batchId);
    // Last: a session lock outlives a rollback, and nothing after it can fail but the commit,
    // which fails only with the connection (and the lock with it).
    if (more) await takeLease(exec, staging.batchId);
    return { staging, more, batch };
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
 * The rows after the first part, in one transaction of their own on the upload's connection:
 * COPY and the end of it cost as when the upload staged everything (a transaction per slice of
 * rows waited for Postgres at each), and the preview shows the first part until the batch is
 * `staged`. Any failure (the file, the row limit, the database, the server stopping) rolls it
 * back, fails the batch and removes its first rows (staging-failure.ts), then rejects. Nothing
 * here waits for a second connection: the progress writes go to the pool unawaited.
 */
async function stageRest(
  ctx: AppContext,
  upload: AdmittedUpload,
  staging: Staging,
  walk: FileWalk,
  file: UploadedFile,
  signal: AbortSignal,
  requestId: string | null,
): Promise<void> {
  const own = upload.connection;
  const started = performance.now();
  const progress = progressWriter(ctx, staging.batchId);
  try {
    const thread = await own.transaction(async (exec) => {
      const background = {
        progress: progress.report,
        threadAfter: ctx.config.GATEWAY_IMPORT_THREAD_AFTER,
        file,
        giveWay: () => ctx.activity.giveWay(staging.accountId),
      };
      const report = await stageRows(exec, staging, walk, Infinity, { signal, background });
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
        // The rows its rest thread staged.
        ...(thread ? { rows_in_thread: thread.rows } : {}),
      },
    });
  } catch (error) {
    await failStaging(ctx, own, staging, error, requestId);
    throw error;
  } finally {
    await walk.close();
    // A lease that cannot be released (the connection broke) went with its session.
    await releaseLease(own.db, staging.batchId).catch(() => undefined);
    await upload.giveBack();
    // Holding no connection now: a progress write still queued on the pool is let finish.
    await progress.settled();
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
  admission,
  filename,
  bytes,
  sheets: chosen,
  codePage,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  /** The upload's place and connection (stagings.ts), held by the caller until this returns. */
  admission: AdmittedUpload;
  filename: string | null;
  bytes: Buffer;
  sheets: string[];
  /** A .dbf table's code page chosen by the clerk, over its header's. */
  codePage?: number;
  requestId: string;
}) {
  const file: UploadedFile = { bytes, chosen, limits: { ...importLimits(ctx.config), ...(codePage === undefined ? {} : { codePage }) } };
  const source = await openSpreadsheet(bytes, file.limits);
  const unknown = chosen.filter((name) => !source.sheets.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new AppError('IMPORT_FOAIE', `O foaie aleasă în câmpul sheet nu există în fișier; foile fișierului: ${source.sheets.map((s) => s.name).join(', ')}.`);
  }
  const fileMeta: FileMeta = {
    kind: source.kind,
    encoding: source.encoding ?? null,
    delimiter: source.delimiter ?? null,
    date1904: source.date1904,
    size: bytes.length,
    ...(source.dbf ? { dbf: source.dbf } : {}),
  };
  const accountId = actor.accountId;
  const walk = walkFile(source, chosen);
  // The upload's one connection, taken with its place; the rest of a long file is staged on
  // it too (it then belongs to stageRest).
  let own: OwnConnection | null = admission.connection;
  try {
    await lowerBackendPriority(own.db, isLocalDatabase(ctx.uploadSql));
    const { staging, more, batch } = await stageFirstPart(ctx, own, actor, filename, fileMeta, walk, admission.signal);
    if (!more) return batch;
    own = null;
    const run = ctx.importStagings.run(admission, (signal) => stageRest(ctx, admission, staging, walk, file, signal, requestId));
    if (run.background) return batch;
    await run.done;
    return await loadBatch(ctx.db, accountId, staging.batchId);
  } finally {
    if (own) {
      await admission.giveBack();
      await walk.close();
    }
  }
}
