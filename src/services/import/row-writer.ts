import { AppError } from '../../errors';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Executor } from '../../../db/client';
import type { ResolutionContext } from '../../domain/resolve';
import { createChunkStager, type ChunkContext, type ChunkRow, type StagedChunk } from './chunk-stager';
import { startChunkThread, type ChunkThread } from './chunk-thread';
import { copyText, FACT_COLUMNS } from './facts';
import { insertBlocks, type BlockSealer } from './raw-blocks';
import { applyReadings, readingsForVins, type VinHasher } from './readings';
import type { RowSetting } from './rows';
import { linkVinSubmissions, submissionsForVins } from './sent-records';
import type { FileWalk } from './sheet-walk';

/**
 * Lines to the COPY stream, gathered into ~64 KB writes (a write per row costs a syscall each),
 * waiting only when Postgres is behind: parsing and storing overlap. `line` is synchronous (it
 * runs for every row); it hands back a promise only when Postgres is behind, to be awaited
 * before the next line.
 */
function copyWriter(stream: Writable) {
  let pending: string[] = [];
  let size = 0;
  const flush = (): Promise<void> | null => {
    if (pending.length === 0) return null;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    return stream.write(chunk) ? null : new Promise((resolve) => stream.once('drain', resolve));
  };
  return {
    line(text: string): Promise<void> | null {
      pending.push(text);
      size += text.length;
      return size >= 65_536 ? flush() : null;
    },
    async finish() {
      await flush();
      await new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve);
        stream.once('error', reject);
        stream.end();
      });
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
// Rows staged together (on the event loop or in the chunk thread), a COPY write each.
const CHUNK_ROWS = 512;

interface StageOptions {
  /** The server is stopping: the staging ends between two rows, its batch failed. */
  signal?: AbortSignal;
  /**
   * Staging beside requests: they get a turn now and then, and `progress` hears how far it got.
   * Past `threadAfter` rows (0: never), a chunk thread shares the rest (chunk-thread.ts).
   */
  background?: { progress(staged: number): void; threadAfter: number };
}

export const interrupted = (cauza: string) => new AppError('IMPORT_INTRERUPT', cauza);

/**
 * Stages the walk's next rows in `exec`'s transaction until `until` rows are staged or the
 * file ends. Rows go from the reader into a COPY a chunk at a time, so parsing overlaps with
 * Postgres writing; each is classified in the same pass, while its plaintext is at hand, and
 * its non-personal facts (facts.ts) are stored in its row: the preview never decrypts the
 * batch. Then the raw cells, sealed in blocks (raw-blocks.ts), and the readings and sent
 * submissions of these rows' VINs (one query each). A background staging's chunks are
 * shared with a chunk thread, when it has one: what it staged is returned.
 */
export async function stageRows(exec: Executor, staging: Staging, walk: FileWalk, until: number, options: StageOptions = {}): Promise<ReturnType<ChunkThread['report']> | null> {
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
  const threadAfter = options.background?.threadAfter ?? 0;
  let thread: ChunkThread | null = null;
  // Chunks out to the thread, each written when it is back.
  const out: Array<Promise<void>> = [];
  let chunk: ChunkRow[] = [];
  const dispatch = async () => {
    if (thread?.free) {
      const written = thread.stage(chunk).then(write);
      // Awaited below; a staging that fails first leaves it unawaited, not unhandled.
      written.catch(() => undefined);
      out.push(written);
    } else {
      // In slices, with other requests let in between: a chunk classified in one go held the
      // event loop for tens of milliseconds.
      for (let at = 0; at < chunk.length; at += TURN_EVERY) {
        await write(stageHere(chunk.slice(at, at + TURN_EVERY)));
        if (at + TURN_EVERY < chunk.length) await nextTurn();
      }
    }
    chunk = [];
  };
  const first = staging.staged;
  let sheet = { name: '', text: '' };
  try {
    while (staging.staged < until) {
      const next = await walk.next();
      if (next.done) break;
      const row = next.value;
      if (options.signal?.aborted) throw interrupted('Serverul s-a oprit în timpul încărcării.');
      const rowIndex = ++staging.staged;
      if (rowIndex > staging.maxRows) {
        throw new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${staging.maxRows} rânduri de date (limita).`);
      }
      if (row.sheet !== sheet.name) sheet = { name: row.sheet, text: copyText(row.sheet) };
      staging.blocks.add(row.line, row.cells);
      chunk.push([rowIndex, sheet.text, row.cells]);
      if (chunk.length === CHUNK_ROWS) await dispatch();
      if (rowIndex % TURN_EVERY === 0) await nextTurn();
      if (options.background) {
        if (rowIndex % PROGRESS_EVERY === 0) options.background.progress(rowIndex);
        if (rowIndex - first === threadAfter) thread = startChunkThread(context, stageHere);
      }
    }
    if (chunk.length > 0) await dispatch();
    await Promise.all(out);
  } catch (error) {
    copy.destroy();
    throw error;
  } finally {
    await thread?.close();
  }
  await copy.finish();
  await insertBlocks(exec, batchId, staging.purgeAfter, await staging.blocks.take());
  await applyReadings(exec, vinHmac, batchId, await readingsForVins(exec, staging.accountId, [...vins]));
  await linkVinSubmissions(exec, vinHmac, batchId, await submissionsForVins(exec, staging.accountId, [...vins]));
  return thread?.report() ?? null;
}
