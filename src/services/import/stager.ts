import { sql } from 'drizzle-orm';
import { isDatabaseUnavailable } from '../../../db/unavailable';
import type { AppContext } from '../../context';
import { describeError } from '../../journal/describe-error';
import { QUEUE_CHANNEL, readUploadedFile } from './queue';
import { stageFile, type ClaimedFile } from './stage-file';
import { claimLost, stagerStopping } from './staging-errors';
import { failStaging, interruptedFailure, markFailed, removeStagedRows, requeue } from './staging-failure';

/** A file whose stagers died this many times while staging it is failed rather than taken up again. */
export const MAX_CLAIMS = 3;

export interface StagerOptions {
  /** Names the stager in the claims it holds (import_uploads.claimed_by) and the journal. */
  id: string;
  /** A claim whose heartbeat is older than this is taken up again (GATEWAY_IMPORT_STALE_S). */
  staleS: number;
  /** How often a staging's claim is renewed, and stale claims looked for (GATEWAY_IMPORT_HEARTBEAT_S). */
  heartbeatS: number;
}

/** A claim as taken: its file still in the database (deflated or not), and its size as it was uploaded. */
type Claim = Omit<ClaimedFile, 'bytes'> & { deflated: boolean; size: number | null };

/**
 * Claims the next file to stage: the oldest waiting file of the account whose last claim is
 * the oldest (an account none was claimed for first), so that one account's many files do not
 * keep another's single one waiting; or a file whose stager stopped sending heartbeats (it
 * died, or lost the database) for longer than `staleS`. SKIP LOCKED: stagers claiming at once
 * each take another file. The batch becomes `staging`, without any row an earlier claim left.
 * Returns null when nothing waits; a file taken up too often is failed instead (and the
 * next one looked for).
 */
async function claimNext(ctx: AppContext, options: StagerOptions): Promise<Claim | null> {
  for (;;) {
    const claimed = await ctx.db.transaction(async (tx) => {
      const [file] = await tx.execute<{
        batch_id: number;
        account_id: number;
        claims: number;
        sheets: unknown;
        code_page: number | null;
        deflated: boolean;
        request_id: string | null;
      }>(sql`
        WITH next AS (
          SELECT u.batch_id FROM import_uploads u JOIN import_batches b ON b.id = u.batch_id
          WHERE b.status IN ('queued', 'staging')
            AND (b.status = 'queued' OR u.heartbeat_at IS NULL OR u.heartbeat_at < now() - make_interval(secs => ${options.staleS}))
          ORDER BY (SELECT max(o.claimed_at) FROM import_uploads o WHERE o.account_id = u.account_id) ASC NULLS FIRST, u.queued_at, u.batch_id
          LIMIT 1
          FOR UPDATE OF u SKIP LOCKED
        )
        UPDATE import_uploads u SET claimed_by = ${options.id}, claimed_at = now(), heartbeat_at = now(), claims = u.claims + 1
        FROM next WHERE u.batch_id = next.batch_id
        RETURNING u.batch_id, u.account_id, u.claims, u.sheets, u.code_page, u.deflated, u.request_id`);
      if (!file) return null;
      if (file.claims > MAX_CLAIMS) {
        await markFailed(tx, file.batch_id, interruptedFailure(file.claims - 1), null);
        ctx.journal.write({
          event: 'import_incarcare_esuata',
          level: 'warn',
          accountId: file.account_id,
          data: { batch_id: file.batch_id, cod: 'IMPORT_INTRERUPT', claims: file.claims - 1 },
        });
        return 'failed' as const;
      }
      const [batch] = await tx.execute<{ filename: string | null; purge_after: Date | string; size: string | null }>(sql`
        UPDATE import_batches SET status = 'staging', row_count = 0 WHERE id = ${file.batch_id} AND status IN ('queued', 'staging')
        RETURNING filename, purge_after, file_meta->>'size' AS size`);
      if (file.claims > 1) await removeStagedRows(tx, file.batch_id);
      return { file, batch: batch! };
    });
    if (claimed === 'failed') continue;
    if (!claimed) return null;
    const { file, batch } = claimed;
    return {
      batchId: file.batch_id,
      accountId: file.account_id,
      claim: file.claims,
      sheets: Array.isArray(file.sheets) ? file.sheets.map(String) : [],
      codePage: file.code_page,
      deflated: file.deflated,
      size: batch.size === null ? null : Number(batch.size),
      filename: batch.filename,
      requestId: file.request_id,
      purgeAfter: new Date(batch.purge_after),
    };
  }
}

/** Renews the claim every `everyMs`; `lost` hears when it was taken over (the staging must stop). */
function heartbeat(ctx: AppContext, file: Claim, everyMs: number, lost: () => void) {
  const timer = setInterval(() => {
    ctx.db.execute(sql`UPDATE import_uploads SET heartbeat_at = now() WHERE batch_id = ${file.batchId} AND claims = ${file.claim} RETURNING batch_id`).then(
      (rows) => (rows.length === 0 ? lost() : undefined),
      // The database is away: the staging's own transaction fails with it.
      () => undefined,
    );
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * A stager: claims files (claimNext), one at a time, and stages each (stage-file.ts) while
 * renewing its claim. Woken by NOTIFY as a file is queued (and on each reconnection of its
 * LISTEN), and every `heartbeatS` for the claims gone stale. A staging that fails on the file
 * or the row limit fails its batch with the reason; one whose database went away leaves its
 * claim to go stale, and this stager goes on claiming once the database answers again (it
 * first hands back the claims it lost that way). `stop` (SIGTERM) ends the staging between two
 * rows and puts its file back in the queue for another stager.
 */
export async function startStager(ctx: AppContext, options: StagerOptions) {
  let stopping = false;
  // The abort reason of a stop (a file then goes back to the queue), told from a lost claim.
  const stopReason = stagerStopping();
  let current: AbortController | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  // Claims this stager lost with its database connection: handed back as soon as it answers.
  const abandoned: Claim[] = [];
  const listener = await ctx.sql.listen(QUEUE_CHANNEL, wake, wake);
  const tick = setInterval(wake, options.heartbeatS * 1000);

  async function stageOne(file: Claim): Promise<void> {
    const controller = new AbortController();
    current = controller;
    const stopBeat = heartbeat(ctx, file, options.heartbeatS * 1000, () => controller.abort(claimLost()));
    const started = performance.now();
    try {
      // Read once the claim is committed: the claim's transaction stays short. Inflated up to
      // the size it was uploaded with (the body limit then), whatever the limit is now.
      const maxBytes = file.size ?? ctx.config.GATEWAY_MAX_BODY_BYTES;
      const bytes = await readUploadedFile(ctx, file.batchId, { deflated: file.deflated, maxBytes });
      const rows = await stageFile(ctx, { ...file, bytes }, controller.signal);
      ctx.journal.write({
        event: 'import_incarcat',
        requestId: file.requestId,
        accountId: file.accountId,
        data: { batch_id: file.batchId, rows, ms: Math.round(performance.now() - started), stager: options.id },
      });
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : null;
      if (reason && reason === stopReason) await requeue(ctx, file).catch(() => abandoned.push(file));
      else if (reason)
        return; // the claim went to another stager: nothing here is ours to write
      else if (isDatabaseUnavailable(error)) {
        abandoned.push(file);
        ctx.journal.write({ event: 'import_staging_deferred', level: 'warn', accountId: file.accountId, data: { batch_id: file.batchId, error: describeError(error) } });
      } else await failStaging(ctx, file, error, file.requestId).catch(() => abandoned.push(file));
    } finally {
      stopBeat();
      current = null;
    }
  }

  const loop = (async () => {
    while (!stopping) {
      woken = false;
      try {
        while (abandoned.length > 0) await requeue(ctx, abandoned[0]!).then(() => abandoned.shift());
        const file = await claimNext(ctx, options);
        if (file) {
          await stageOne(file);
          continue;
        }
      } catch (error) {
        // The database is away (a failover, a restart): try again at the next wake.
        if (!isDatabaseUnavailable(error)) ctx.journal.write({ event: 'stager_error', level: 'error', data: { stager: options.id, error: describeError(error) } });
      }
      await sleep(options.heartbeatS * 1000);
    }
  })();
  ctx.journal.write({ event: 'stager_started', data: { stager: options.id } });

  return {
    /** Stops claiming; a staging in progress ends between two rows and its file goes back to the queue. */
    async stop(): Promise<void> {
      stopping = true;
      current?.abort(stopReason);
      wake();
      clearInterval(tick);
      await loop;
      await listener.unlisten().catch(() => undefined);
      ctx.journal.write({ event: 'stager_stopped', data: { stager: options.id } });
    },
    /** Wakes the stager now (a test that queued a file without NOTIFY). */
    wake,
  };
}
export type Stager = Awaited<ReturnType<typeof startStager>>;
