import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Keyring } from '../../crypto/envelope';
import type { CellValue } from '../../domain/import-cells';

/**
 * A batch's raw cells, as `import_row_blocks` keeps them: ROWS_PER_BLOCK consecutive rows per
 * block, as JSON, deflated, then envelope-encrypted. A row is read by decrypting its block;
 * a page, a commit or an export decrypts each block it touches once.
 */
export const ROWS_PER_BLOCK = 256;

export interface RawRow {
  /** The row's line in its sheet (1-based), as the user sees it in the file. */
  line: number | null;
  cells: CellValue[];
}

const deflateBlock = promisify(deflateRaw);
const inflateBlock = promisify(inflateRaw);
const deflate = (json: string) => deflateBlock(json, { level: 1 });

/** Row indexes start at 1. */
const blockOf = (rowIndex: number) => Math.floor((rowIndex - 1) / ROWS_PER_BLOCK);

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

/** A block as written: its number (rows blockNo × ROWS_PER_BLOCK + 1 ...) and its ciphertext. */
interface SealedBlock {
  no: number;
  enc: string;
}

/** A block deflated, not yet encrypted. */
export interface PackedBlock {
  no: number;
  deflated: Uint8Array;
}

/**
 * Collects rows in order, from block `firstBlock` on, and deflates each full block. Blocks are
 * deflated on libuv's thread pool, beside the rows being read and classified: on the event
 * loop, that was ~0.1 s of a 100,000-row upload.
 */
export function createBlockPacker(firstBlock = 0) {
  let rows: Array<{ l: number; c: readonly CellValue[] }> = [];
  let filling = firstBlock;
  let packed: Array<Promise<PackedBlock>> = [];
  // Level 1: a block of similar rows still shrinks several times, at a fraction of the CPU.
  const pack = (): Promise<PackedBlock> => {
    const no = filling;
    const block = deflate(JSON.stringify(rows)).then((deflated) => ({ no, deflated }));
    // Awaited by `take`; a staging that fails before then leaves it unawaited, not unhandled.
    block.catch(() => undefined);
    return block;
  };
  return {
    add(line: number, cells: readonly CellValue[]) {
      rows.push({ l: line, c: cells });
      if (rows.length === ROWS_PER_BLOCK) {
        packed.push(pack());
        rows = [];
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
      return (await packer.take(true)).map((b) => ({ no: b.no, enc: keyring.encryptBytes(b.deflated) }));
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
      INSERT INTO import_row_blocks (batch_id, block_no, raw_enc, purge_after)
      SELECT ${batchId}, b.no, b.enc, ${purgeAfter.toISOString()}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS b(no int, enc text)
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
  const wanted = [...new Set(rows.filter((r) => r.raw_enc === null).map((r) => blockOf(r.row_index)))];
  const blocks = new Map<number, unknown[]>();
  if (wanted.length > 0) {
    const found = await exec.execute<{ block_no: number; raw_enc: string }>(sql`
      SELECT block_no, raw_enc FROM import_row_blocks
      WHERE batch_id = ${batchId} AND block_no = ANY(string_to_array(${wanted.join(',')}, ',')::int[])`);
    for (const block of found) blocks.set(block.block_no, await openBlock(keyring, block.raw_enc));
  }
  return rows.map((row) => {
    const stored = row.raw_enc === null ? blocks.get(blockOf(row.row_index))?.[(row.row_index - 1) % ROWS_PER_BLOCK] : readSealed(keyring, row.raw_enc);
    return { ...row, raw: readRaw(stored) };
  });
}
