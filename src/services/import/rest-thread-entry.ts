import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../errors';
import { openSpreadsheet } from '../../import/open';
import { createChunkStager, type ChunkRow } from './chunk-stager';
import { copyText } from './facts';
import { createBlockPacker, ROWS_PER_BLOCK } from './raw-blocks';
import type { RestInput, RestMessage } from './rest-thread';
import { walkFile } from './sheet-walk';
import { tooManyRows } from './staging-errors';

// Runs in the rest thread (rest-thread.ts): opens the upload's file again, reads past the rows
// the event loop staged, and stages the rest, a chunk at a time, as COPY lines and packed
// blocks for the event loop to write. At most IN_FLIGHT chunks are out: each waits for an
// 'ack' (its lines written, Postgres keeping up), so a slow database holds the thread back
// instead of filling memory.
//
// The thread runs at the lowest CPU priority: on Linux a nice value belongs to a thread, and
// setPriority of "this process" (pid 0) sets the calling thread's alone. So on a busy machine
// the event loop, which answers every other account's requests, gets the cores first and the
// staging takes what is left. Where that is refused, the thread runs as it is.
try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {}

const IN_FLIGHT = 3;
// Rows staged together, a message each.
const CHUNK_ROWS = 512;

const port = parentPort!;
let credits = IN_FLIGHT;
let credited: (() => void) | null = null;
port.on('message', () => {
  credits += 1;
  credited?.();
  credited = null;
});

async function send(message: RestMessage): Promise<void> {
  if (credits === 0) await new Promise<void>((resolve) => (credited = resolve));
  credits -= 1;
  port.postMessage(message, message.kind === 'rows' ? message.blocks.map((b) => b.deflated.buffer as ArrayBuffer) : []);
}

async function stageRest({ bytes, chosen, limits, skip, maxRows, context }: RestInput): Promise<RestMessage> {
  const stage = createChunkStager(context);
  // The block the skipped rows end in is packed again, whole, with the rows after them.
  const firstBlock = Math.floor(skip / ROWS_PER_BLOCK);
  const packer = createBlockPacker(firstBlock);
  const walk = walkFile(await openSpreadsheet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits), chosen);
  let staged = 0;
  let chunk: ChunkRow[] = [];
  let sheet = { name: '', text: '' };
  const flush = async (last: boolean) => {
    const { copy, vins } = stage(chunk);
    chunk = [];
    // Copied out of zlib's buffers, to be moved to the event loop whole.
    const blocks = (await packer.take(last)).map((b) => ({ no: b.no, deflated: new Uint8Array(b.deflated) }));
    await send({ kind: 'rows', copy, vins, staged, blocks });
  };
  for (let next = await walk.next(); !next.done; next = await walk.next()) {
    const row = next.value;
    const rowIndex = ++staged;
    if (rowIndex > firstBlock * ROWS_PER_BLOCK) packer.add(row.line, row.cells);
    if (rowIndex <= skip) continue;
    if (rowIndex > maxRows) throw tooManyRows(maxRows);
    if (row.sheet !== sheet.name) sheet = { name: row.sheet, text: copyText(row.sheet) };
    chunk.push([rowIndex, sheet.text, row.cells]);
    if (chunk.length === CHUNK_ROWS) await flush(false);
  }
  await flush(true);
  return { kind: 'done', staged, summaries: walk.summaries };
}

stageRest(workerData as RestInput).then(
  (done) => port.postMessage(done),
  (error: unknown) => {
    const failed: RestMessage =
      error instanceof AppError
        ? { kind: 'failed', cod: error.cod, cauza: error.cauza, field: error.field }
        : { kind: 'failed', cod: null, cauza: error instanceof Error ? error.message : String(error) };
    port.postMessage(failed);
  },
);
