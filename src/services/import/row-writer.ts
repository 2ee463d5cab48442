import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Executor } from '../../../db/client';
import type { ResolutionContext } from '../../domain/resolve';
import { createChunkStager, type ChunkContext, type ChunkRow, type StagedChunk } from './chunk-stager';
import { copyText, FACT_COLUMNS } from './facts';
import { insertBlocks, type BlockSealer, type PackedBlock } from './raw-blocks';
import { stageInThread, type UploadedFile } from './rest-thread';
import { serverStopping, tooManyRows } from './staging-errors';
import { analyzeStaged, applyReadings, readingsForVins, type VinHasher } from './readings';
import type { RowSetting } from './rows';
import { linkVinSubmissions, submissionsForVins } from './sent-records';
import type { FileWalk } from './sheet-walk';

/**
 * Lines to the COPY stream, gathered into ~64 KB writes (a write per row costs a syscall each),
 * waiting only when Postgres is behind: parsing and storing overlap. `line` is synchronous (it
 * runs for every row); it hands back a promise only when Postgres is behind, to be awaited
 * before the next line. The stream's error (its connection lost: a database failover) fails the
 * next line, the wait for Postgres or the finish; with no listener between two writes, it was
 * thrown as an uncaught exception and stopped the server.
 */
function copyWriter(stream: Writable) {
  let pending: string[] = [];
  let size = 0;
  let failure: unknown = null;
  const failed = new Promise<never>((_, reject) =>
    stream.on('error', (error) => {
      failure ??= error;
      reject(failure);
    }),
  );
  failed.catch(() => {}); // each wait below rejects with it
  const flush = (): Promise<void> | null => {
    if (failure) return Promise.reject(failure);
    if (pending.length === 0) return null;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    return stream.write(chunk) ? null : Promise.race([new Promise<void>((resolve) => stream.once('drain', resolve)), failed]);
  };
  return {
    line(text: string): Promise<void> | null {
      pending.push(text);
      size += text.length;
      return size >= 65_536 || failure ? flush() : null;
    },
    async finish() {
      await flush();
      await Promise.race([
        new Promise<void>((resolve) => {
          stream.once('finish', resolve);
          stream.end();
        }),
        failed,
      ]);
    },
    destroy: () => stream.destroy(),
  };
}

/**
 * drizzle has no COPY, and a row-by-row insert would dominate the upload: the postgres.js
 * connection under the drizzle transaction streams it, inside that same transaction.
 */
function copyConnection(exec: Executor): postgres.TransactionSql {
  const client = (exec as unknown as { session?: { client?: postgres.TransactionSql } }).session?.client;
  if (typeof client?.unsafe !== 'function') throw new Error('drizzle transaction without a postgres.js connection');
  return client;
}

/** An upload being staged: what every row is derived with, and how far it got (kept between its transactions). */
export interface Staging {
  accountId: number;
  batchId: number;
  purgeAfter: Date;
  setting: RowSetting;
  resolution: ResolutionContext;
  now: Date;
  /** The batch's VIN key, and the HMAC under it (readings.ts). */
  vinKey: Uint8Array;
  vinHmac: VinHasher;
  /** Submissions up to this id were looked at for the rows' readings (fingerprint.ts `seen`). */
  watermark: number;
  maxRows: number;
  /** Rows staged so far: the last row_index. */
  staged: number;
  blocks: BlockSealer;
}

// Every staging, in the upload or in the background, lets other requests in this often (rows):
// uploads stage beside every account's calls, which must not wait behind a file. A background
// staging tells its progress this often.
const TURN_EVERY = 32;
const PROGRESS_EVERY = 5_000;
// Rows staged together on the event loop, a COPY write each.
const CHUNK_ROWS = 512;

interface StageOptions {
  /** The server is stopping: the staging ends between two rows, its batch failed. */
  signal?: AbortSignal;
  /**
   * Staging beside requests: they get a turn now and then, and `progress` hears how far it got.
   * Past `threadAfter` rows (0: never), a thread stages the rest of `file` (rest-thread.ts),
   * waiting for `giveWay` after each chunk (give-way.ts).
   */
  background?: { progress(staged: number): void; threadAfter: number; file: UploadedFile; giveWay(): Promise<void> };
}

/**
 * Stages the walk's next rows in `exec`'s transaction until `until` rows are staged or the
 * file ends. Rows go from the reader into a COPY a chunk at a time, so parsing overlaps with
 * Postgres writing; each is classified in the same pass, while its plaintext is at hand, and
 * its non-personal facts (facts.ts) are stored in its row: the preview never decrypts the
 * batch. Then the raw cells, sealed in blocks (raw-blocks.ts), and the readings and sent
 * submissions of these rows' VINs (one query each). A background staging past `threadAfter`
 * rows hands the rest to a thread, which reads the file again from there: the rows it staged
 * are returned.
 */
export async function stageRows(exec: Executor, staging: Staging, walk: FileWalk, until: number, options: StageOptions = {}): Promise<{ rows: number } | null> {
  const { batchId, vinHmac } = staging;
  const context: ChunkContext = {
    batchId,
    purgeAfter: staging.purgeAfter.toISOString(),
    setting: staging.setting,
    resolution: staging.resolution,
    now: staging.now,
    vinKey: staging.vinKey,
  };
  const stageHere = createChunkStager(context);
  const copy = copyWriter(
    await copyConnection(exec)
      .unsafe(`COPY import_rows (batch_id, row_index, sheet, purge_after, ${FACT_COLUMNS.join(', ')}) FROM STDIN`)
      .writable(),
  );
  // The distinct VINs, for one lookup of the odometer readings already recorded.
  const vins = new Set<string>();
  const write = async (staged: StagedChunk) => {
    for (const vin of staged.vins) vins.add(vin);
    const behind = copy.line(staged.copy);
    if (behind) await behind;
  };
  const first = staging.staged;
  const background = options.background;
  const handOverAt = background && background.threadAfter > 0 ? first + background.threadAfter : Infinity;
  let chunk: ChunkRow[] = [];
  // In slices, with other requests let in between: a chunk classified in one go held the event
  // loop for tens of milliseconds.
  const dispatch = async () => {
    for (let at = 0; at < chunk.length; at += TURN_EVERY) {
      await write(stageHere(chunk.slice(at, at + TURN_EVERY)));
      if (at + TURN_EVERY < chunk.length) await nextTurn();
    }
    chunk = [];
  };
  let sheet = { name: '', text: '' };
  let threadRows: PackedBlock[] | null = null;
  try {
    while (staging.staged < until && staging.staged < handOverAt) {
      const next = await walk.next();
      if (next.done) break;
      const row = next.value;
      if (options.signal?.aborted) throw serverStopping();
      const rowIndex = ++staging.staged;
      if (rowIndex > staging.maxRows) throw tooManyRows(staging.maxRows);
      if (row.sheet !== sheet.name) sheet = { name: row.sheet, text: copyText(row.sheet) };
      staging.blocks.add(row.line, row.cells);
      chunk.push([rowIndex, sheet.text, row.cells]);
      if (chunk.length === CHUNK_ROWS) await dispatch();
      if (rowIndex % TURN_EVERY === 0) await nextTurn();
      if (background && rowIndex % PROGRESS_EVERY === 0) background.progress(rowIndex);
    }
    if (chunk.length > 0) await dispatch();
    if (background && staging.staged === handOverAt && (await walk.more())) threadRows = await stageRestInThread(staging, context, walk, write, background, options.signal);
  } catch (error) {
    copy.destroy();
    throw error;
  }
  await copy.finish();
  // The thread packed the block the event loop's rows ended in again, fuller.
  const blocks = threadRows ? [...(await staging.blocks.take(false)), ...staging.blocks.seal(threadRows)] : await staging.blocks.take();
  await insertBlocks(exec, batchId, staging.purgeAfter, blocks);
  if (staging.staged < until) await analyzeStaged(exec, staging.staged);
  await applyReadings(exec, vinHmac, batchId, await readingsForVins(exec, staging.accountId, [...vins]));
  await linkVinSubmissions(exec, vinHmac, batchId, await submissionsForVins(exec, staging.accountId, [...vins]));
  return threadRows ? { rows: staging.staged - handOverAt } : null;
}

/**
 * The rest of the file, staged by a thread (rest-thread.ts) from the row after `staging.staged`:
 * the event loop's reader is closed (the thread reads its own), each chunk the thread sends is
 * written to the COPY, and the walk's sheet summaries become the thread's, of the whole file.
 * Returns the blocks the thread packed.
 */
async function stageRestInThread(
  staging: Staging,
  context: ChunkContext,
  walk: FileWalk,
  write: (staged: StagedChunk) => Promise<void>,
  background: NonNullable<StageOptions['background']>,
  signal: AbortSignal | undefined,
): Promise<PackedBlock[]> {
  await walk.close();
  const packed: PackedBlock[] = [];
  const input = { ...background.file, skip: staging.staged, maxRows: staging.maxRows, context };
  const done = await stageInThread(
    input,
    async (rows) => {
      packed.push(...rows.blocks);
      // At each multiple of PROGRESS_EVERY crossed, as on the event loop.
      const crossed = Math.floor(rows.staged / PROGRESS_EVERY);
      if (crossed > Math.floor(staging.staged / PROGRESS_EVERY)) background.progress(crossed * PROGRESS_EVERY);
      staging.staged = rows.staged;
      await write(rows);
      // Before the thread may send the next chunk (give-way.ts).
      await background.giveWay();
    },
    signal,
    serverStopping,
  );
  staging.staged = done.staged;
  walk.adopt(done.summaries);
  return packed;
}
