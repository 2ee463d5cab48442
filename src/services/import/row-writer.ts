import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Executor } from '../../../db/client';
import type { ResolutionContext } from '../../domain/resolve';
import { createChunkStager, type ChunkRow } from './chunk-stager';
import { copyText, FACT_COLUMNS } from './facts';
import { insertBlocks, type BlockSealer } from './raw-blocks';
import { stagerStopping, tooManyRows } from './staging-errors';
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
 * thrown as an uncaught exception and stopped the process.
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

// A stager tells how far it got this often (rows), for GET /v1/import/{id} and the preview.
const PROGRESS_EVERY = 5_000;
/** Rows classified together into one COPY write. */
export const CHUNK_ROWS = 512;

interface StageOptions {
  /** The stager is stopping, or lost its claim: the staging ends between two rows. */
  signal?: AbortSignal;
  /** Hears how far the staging got, every PROGRESS_EVERY rows. */
  progress?: (staged: number) => void;
}

/**
 * Stages the walk's next rows in `exec`'s transaction until `until` rows are staged or the
 * file ends. Rows go from the reader into a COPY a chunk at a time, so parsing overlaps with
 * Postgres writing; each is classified in the same pass, while its plaintext is at hand, and
 * its non-personal facts (facts.ts) are stored in its row: the preview never decrypts the
 * batch. Then the raw cells, sealed in blocks (raw-blocks.ts), and the readings and sent
 * submissions of these rows' VINs (one query each). It runs in a stager process, apart from
 * the requests, so it reads as fast as it can.
 */
export async function stageRows(exec: Executor, staging: Staging, walk: FileWalk, until: number, options: StageOptions = {}): Promise<void> {
  const { batchId, vinHmac } = staging;
  const stageChunk = createChunkStager({
    batchId,
    purgeAfter: staging.purgeAfter.toISOString(),
    setting: staging.setting,
    resolution: staging.resolution,
    now: staging.now,
    vinKey: staging.vinKey,
  });
  const copy = copyWriter(
    await copyConnection(exec)
      .unsafe(`COPY import_rows (batch_id, row_index, sheet, purge_after, ${FACT_COLUMNS.join(', ')}) FROM STDIN`)
      .writable(),
  );
  // The distinct VINs, for one lookup of the odometer readings already recorded.
  const vins = new Set<string>();
  let chunk: ChunkRow[] = [];
  const dispatch = async () => {
    const staged = stageChunk(chunk);
    chunk = [];
    for (const vin of staged.vins) vins.add(vin);
    const behind = copy.line(staged.copy);
    if (behind) await behind;
  };
  let sheet = { name: '', text: '' };
  try {
    while (staging.staged < until) {
      const next = await walk.next();
      if (next.done) break;
      const row = next.value;
      if (options.signal?.aborted) throw options.signal.reason ?? stagerStopping();
      const rowIndex = ++staging.staged;
      if (rowIndex > staging.maxRows) throw tooManyRows(staging.maxRows);
      if (row.sheet !== sheet.name) sheet = { name: row.sheet, text: copyText(row.sheet) };
      staging.blocks.add(rowIndex, row.line, row.cells);
      chunk.push([rowIndex, sheet.text, row.cells]);
      if (chunk.length === CHUNK_ROWS) await dispatch();
      if (options.progress && rowIndex % PROGRESS_EVERY === 0) options.progress(rowIndex);
    }
    if (chunk.length > 0) await dispatch();
  } catch (error) {
    copy.destroy();
    throw error;
  }
  await copy.finish();
  await insertBlocks(exec, batchId, staging.purgeAfter, await staging.blocks.take());
  if (staging.staged < until) await analyzeStaged(exec, staging.staged);
  await applyReadings(exec, vinHmac, batchId, await readingsForVins(exec, staging.accountId, [...vins]));
  await linkVinSubmissions(exec, vinHmac, batchId, await submissionsForVins(exec, staging.accountId, [...vins]));
}
