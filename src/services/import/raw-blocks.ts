import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Keyring } from '../../crypto/envelope';
import type { CellValue } from '../../domain/import-cells';

/**
 * A batch's raw cells, as `import_row_blocks` keeps them: consecutive rows per block, as JSON,
 * deflated, then envelope-encrypted. A row is read by decrypting its block; a page, a commit or
 * an export decrypts each block it touches once. A block holds ROWS_PER_BLOCK rows, or fewer
 * once its JSON reaches MAX_BLOCK_CHARS: a reader decodes and parses a block whole on the event
 * loop, in one step that no other account's request can pass, so a block of rows at their
 * bounds is kept to a few turns of the rows' classification (rows.ts). Blocks of 256 rows, and
 * then of 1 MiB, held another account's request that met one for twice its quiet time or more
 * (bench:abuse, attack 2; bench/results/abuse-2026-11-27.md and -28.md). A row is never split:
 * a block of one long row is as long as the row.
 */
export const ROWS_PER_BLOCK = 256;
export const MAX_BLOCK_CHARS = 256 * 1024;

export interface RawRow {
  /** The row's line in its sheet (1-based), as the user sees it in the file. */
  line: number | null;
  cells: CellValue[];
}

const deflateBlock = promisify(deflateRaw);
const inflateBlock = promisify(inflateRaw);
const deflate = (json: string) => deflateBlock(json, { level: 1 });

/** A stored raw row, read defensively: anything unexpected reads as an empty row. */
function readRaw(stored: unknown): RawRow {
  const raw = (stored && typeof stored === 'object' ? stored : {}) as { l?: unknown; c?: unknown };
  const cells = Array.isArray(raw.c) ? raw.c.map((c): CellValue => (typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean' ? c : null)) : [];
  return { line: typeof raw.l === 'number' ? raw.l : null, cells };
}

/**
 * A block's rows; one that does not decrypt, inflate or parse reads as no rows (each then empty,
 * never an error). Inflated on libuv's thread pool: a block of rows at their bounds is tens of
 * megabytes, which inflated on the event loop held every other request for as long.
 */
async function openBlock(keyring: Keyring, token: string): Promise<unknown[]> {
  try {
    const rows: unknown = JSON.parse((await inflateBlock(keyring.decryptBytes(token))).toString('utf8'));
    return Array.isArray(rows) ? rows : [];
  } catch {
    return [];
  }
}

/** One sealed JSON value (a row staged before blocks, a row's override); null if it does not open. */
export function readSealed(keyring: Keyring, token: string): unknown {
  try {
    return JSON.parse(keyring.decrypt(token));
  } catch {
    return null;
  }
}

/**
 * Whether the account's batch has heavy rows: a block of it closed at MAX_BLOCK_CHARS before
 * ROWS_PER_BLOCK rows (its rows average over 1 KiB of cells), so that a page of them is
 * megabytes to open and classify; a read of it is costly work of its account
 * (http/cost-budget.ts). Only the last block is looked at: once one block closes early, every
 * later block starts before its 256-row place. Another account's batch reads as not heavy.
 */
export async function hasHeavyRows(exec: Executor, accountId: number, batchId: number): Promise<boolean> {
  const [last] = await exec.execute<{ heavy: boolean }>(sql`
    SELECT b.first_row < b.block_no * ${ROWS_PER_BLOCK} + 1 AS heavy
    FROM import_row_blocks b JOIN import_batches ib ON ib.id = b.batch_id AND ib.account_id = ${accountId}
    WHERE b.batch_id = ${batchId} ORDER BY b.block_no DESC LIMIT 1`);
  return last?.heavy ?? false;
}

/** A block as written: its number, the row_index of its first row, and its ciphertext. */
interface SealedBlock {
  no: number;
  first: number;
  enc: string;
}

/** A block deflated, not yet encrypted. */
export interface PackedBlock {
  no: number;
  first: number;
  deflated: Uint8Array;
}

/**
 * Collects rows in order and deflates each full block. Blocks are deflated on libuv's thread
 * pool, beside the rows being read and classified: on the event loop, that was ~0.1 s of a
 * 100,000-row upload.
 */
export function createBlockPacker() {
  // The filling block: its rows as JSON, their length, its number and first row.
  let rows: string[] = [];
  let chars = 0;
  let filling = 0;
  let first = 1;
  let packed: Array<Promise<PackedBlock>> = [];
  // Level 1: a block of similar rows still shrinks several times, at a fraction of the CPU.
  const pack = (): Promise<PackedBlock> => {
    const [no, from] = [filling, first];
    const block = deflate(`[${rows.join(',')}]`).then((deflated) => ({ no, first: from, deflated }));
    // Awaited by `take`; a staging that fails before then leaves it unawaited, not unhandled.
    block.catch(() => undefined);
    return block;
  };
  return {
    /** Row `rowIndex` (the next one: rows come in order), at `line` of its sheet. */
    add(rowIndex: number, line: number, cells: readonly CellValue[]) {
      if (rows.length === 0) first = rowIndex;
      const json = JSON.stringify({ l: line, c: cells });
      rows.push(json);
      chars += json.length;
      if (rows.length === ROWS_PER_BLOCK || chars >= MAX_BLOCK_CHARS) {
        packed.push(pack());
        rows = [];
        chars = 0;
        filling += 1;
      }
    },
    /** The blocks filled since the last take; with `partial`, the one still filling too, as it is now. */
    async take(partial: boolean): Promise<PackedBlock[]> {
      const taken = partial && rows.length > 0 ? [...packed, pack()] : packed;
      packed = [];
      return Promise.all(taken);
    },
  };
}

/**
 * Collects an upload's rows in order and seals each full block. An upload staged in several
 * transactions takes its blocks at the end of each: the block still filling is sealed as it is
 * then, so its rows can be read at once, and written again, fuller, by the next take.
 */
export function createBlockSealer(keyring: Keyring) {
  const packer = createBlockPacker();
  return {
    add: packer.add,
    async take(): Promise<SealedBlock[]> {
      return (await packer.take(true)).map((b) => ({ no: b.no, first: b.first, enc: keyring.encryptBytes(b.deflated) }));
    },
  };
}
export type BlockSealer = ReturnType<typeof createBlockSealer>;

const INSERT_CHUNK = 64;

/** Writes blocks; one written before (the block that was still filling) is replaced. */
export async function insertBlocks(exec: Executor, batchId: number, purgeAfter: Date, blocks: readonly SealedBlock[]): Promise<void> {
  for (let first = 0; first < blocks.length; first += INSERT_CHUNK) {
    const chunk = blocks.slice(first, first + INSERT_CHUNK);
    await exec.execute(sql`
      INSERT INTO import_row_blocks (batch_id, block_no, first_row, raw_enc, purge_after)
      SELECT ${batchId}, b.no, b.first, b.enc, ${purgeAfter.toISOString()}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS b(no int, first int, enc text)
      ON CONFLICT (batch_id, block_no) DO UPDATE SET raw_enc = EXCLUDED.raw_enc`);
  }
}

/**
 * The raw cells of `rows` (of one batch): from their blocks, each fetched and decrypted once,
 * or from a row's own ciphertext for rows staged before blocks.
 */
export async function withRaw<T extends { row_index: number; raw_enc: string | null }>(
  exec: Executor,
  keyring: Keyring,
  batchId: number,
  rows: readonly T[],
): Promise<Array<T & { raw: RawRow }>> {
  // Each row in a block: where it starts, found once.
  const at = new Map<T, BlockStart | undefined>();
  const blocks = new Map<number, unknown[]>();
  if (rows.some((r) => r.raw_enc === null)) {
    // Where each block of the batch starts (a few hundred for 100,000 rows), then the blocks
    // the rows are in. A block written before blocks closed at a size has no first row: it
    // holds rows blockNo × ROWS_PER_BLOCK + 1 ... (blockNo + 1) × ROWS_PER_BLOCK.
    const starts = await exec.execute<BlockStart>(sql`
      SELECT block_no, coalesce(first_row, block_no * ${ROWS_PER_BLOCK} + 1) AS first_row
      FROM import_row_blocks WHERE batch_id = ${batchId} ORDER BY block_no`);
    for (const row of rows) if (row.raw_enc === null) at.set(row, blockAt(starts, row.row_index));
    const needed = new Set([...at.values()].flatMap((block) => (block ? [block.block_no] : [])));
    const found = await exec.execute<{ block_no: number; raw_enc: string }>(sql`
      SELECT block_no, raw_enc FROM import_row_blocks
      WHERE batch_id = ${batchId} AND block_no = ANY(string_to_array(${[...needed].join(',')}, ',')::int[])`);
    // Each opened in a turn of its own.
    for (const block of found) blocks.set(block.block_no, await openBlock(keyring, block.raw_enc));
  }
  return rows.map((row) => {
    const block = at.get(row);
    const stored = row.raw_enc === null ? block && blocks.get(block.block_no)?.[row.row_index - block.first_row] : readSealed(keyring, row.raw_enc);
    return { ...row, raw: readRaw(stored) };
  });
}

type BlockStart = {
  block_no: number;
  first_row: number;
};

/** The block that starts last at or before `rowIndex` (`starts` in order). */
function blockAt(starts: readonly BlockStart[], rowIndex: number): BlockStart | undefined {
  let [low, high] = [0, starts.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (starts[middle]!.first_row <= rowIndex) low = middle;
    else high = middle - 1;
  }
  const block = starts[low];
  return block && block.first_row <= rowIndex ? block : undefined;
}
