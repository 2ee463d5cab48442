import { readlinkSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { parentPort, resourceLimits, Worker, workerData } from 'node:worker_threads';
import { openSpreadsheet } from '../../import/open';
import { createChunkStager, type ChunkContext, type ChunkRow, type StagedChunk } from './chunk-stager';
import { copyText } from './facts';
import { createBlockPacker, ROWS_PER_BLOCK } from './raw-blocks';
import type { RestMessage, RestWorkerData, ThreadCode } from './rest-thread';
import { walkFile } from './sheet-walk';
import { fromThreadFailure, toThreadFailure, tooManyRows, type ThreadFailure } from './staging-errors';

// Runs in the rest thread (rest-thread.ts): opens the upload's file again, reads past the rows
// the event loop staged, and stages the rest, a chunk at a time, as COPY lines and packed
// blocks for the event loop to write. At most IN_FLIGHT chunks are out: each waits for an
// 'ack' (its lines written, Postgres keeping up), so a slow database holds the thread back
// instead of filling memory.
//
// Reading and classifying cost about the same, so while the cores allow (stagingThreads) they
// run in a pipeline: this thread reads and packs, and a classifier thread of its own (the same
// code, `workerData.classify`) turns each chunk's rows into COPY lines, at most AHEAD chunks
// behind the reader. Otherwise this thread classifies each chunk itself.
//
const IN_FLIGHT = 3;
// Rows staged together, a message each.
const CHUNK_ROWS = 512;
// Chunks read but not yet sent: the classifier's queue, at most.
const AHEAD = 4;
/** The classifier's heap: a few chunks of rows and their lines. */
const CLASSIFIER_HEAP_MB = 64;

const port = parentPort!;

// The thread runs at the lowest CPU priority: on Linux a nice value and a scheduling policy
// belong to a thread, and setPriority of "this process" (pid 0) sets the calling thread's
// alone. SCHED_IDLE is set from the main thread (runOnlyWhenIdle), which is told this thread's
// id (a classifier's goes through its rest thread). So on a busy machine the event loop, which
// answers every other account's requests, gets the cores first and the staging takes what is
// left. Where that is refused, the thread runs as it is.
try {
  setPriority(constants.priority.PRIORITY_LOW);
  port.postMessage({ kind: 'thread', tid: Number(readlinkSync('/proc/thread-self').split('/').pop()) });
} catch {}

/** The classifier's answer to a chunk: its lines, or the error; first, its thread's id. */
type Classified = { kind: 'thread'; tid: number } | { kind: 'staged'; chunk: StagedChunk } | ThreadFailure;

/** The classifier thread: each message a chunk of rows, each answer its Classified, in order. */
function runClassifier(context: ChunkContext): void {
  const stage = createChunkStager(context);
  port.on('message', (rows: ChunkRow[]) => {
    let answer: Classified;
    try {
      answer = { kind: 'staged', chunk: stage(rows) };
    } catch (error) {
      answer = toThreadFailure(error);
    }
    port.postMessage(answer);
  });
}

/** Classifies chunks in this thread; `classify` answers at once. */
function classifyHere(context: ChunkContext) {
  const stage = createChunkStager(context);
  return { classify: async (rows: ChunkRow[]) => stage(rows), stop: () => undefined };
}

/** Starts the classifier thread; `classify` answers in the order chunks were given. */
function startClassifier(thread: ThreadCode, context: ChunkContext) {
  const worker = new Worker(thread.eval ? thread.code : new URL(thread.code), {
    eval: thread.eval,
    workerData: { classify: context },
    // The young generation of this thread (rest-thread.ts THREAD_YOUNG_MB).
    resourceLimits: { maxOldGenerationSizeMb: CLASSIFIER_HEAP_MB, maxYoungGenerationSizeMb: resourceLimits.maxYoungGenerationSizeMb },
  });
  const waiting: Array<{ resolve: (chunk: StagedChunk) => void; reject: (error: unknown) => void }> = [];
  const failAll = (error: unknown) => {
    for (const w of waiting.splice(0)) w.reject(error);
  };
  worker.on('message', (answer: Classified) => {
    if (answer.kind === 'thread') return port.postMessage(answer);
    const next = waiting.shift();
    if (answer.kind === 'staged') next?.resolve(answer.chunk);
    else next?.reject(fromThreadFailure(answer));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the import classifier exited (${code})`)));
  return {
    classify(rows: ChunkRow[]): Promise<StagedChunk> {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(rows);
      });
    },
    stop: () => void worker.terminate(),
  };
}

// The rest thread's credits: each 'ack' from the event loop gives one back (listened to in stageRest).
let credits = IN_FLIGHT;
let credited: (() => void) | null = null;
const onAck = () => {
  credits += 1;
  credited?.();
  credited = null;
};

async function send(message: RestMessage): Promise<void> {
  if (credits === 0) await new Promise<void>((resolve) => (credited = resolve));
  credits -= 1;
  port.postMessage(message, message.kind === 'rows' ? message.blocks.map((b) => b.deflated.buffer as ArrayBuffer) : []);
}

async function stageRest({ bytes, chosen, limits, skip, maxRows, context, thread, classifier: own }: RestWorkerData): Promise<RestMessage> {
  port.on('message', onAck);
  const classifier = own ? startClassifier(thread, context) : classifyHere(context);
  try {
    // The block the skipped rows end in is packed again, whole, with the rows after them.
    const firstBlock = Math.floor(skip / ROWS_PER_BLOCK);
    const packer = createBlockPacker(firstBlock);
    const walk = walkFile(await openSpreadsheet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits), chosen);
    let staged = 0;
    let chunk: ChunkRow[] = [];
    let sheet = { name: '', text: '' };
    // Each chunk sent once it is classified and the ones before it are sent.
    const sending: Promise<void>[] = [];
    let sent: Promise<void> = Promise.resolve();
    const flush = async (last: boolean) => {
      const classified = classifier.classify(chunk);
      const upTo = staged;
      chunk = [];
      // Copied out of zlib's buffers, to be moved to the event loop whole.
      const blocks = (await packer.take(last)).map((b) => ({ no: b.no, deflated: new Uint8Array(b.deflated) }));
      sent = sent.then(async () => {
        const { copy, vins } = await classified;
        await send({ kind: 'rows', copy, vins, staged: upTo, blocks });
      });
      // Awaited below or at the end; until then a failure must not count as unhandled.
      sent.catch(() => undefined);
      sending.push(sent);
      if (sending.length > AHEAD) await sending.shift();
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
    await sent;
    return { kind: 'done', staged, summaries: walk.summaries };
  } finally {
    classifier.stop();
  }
}

const data = workerData as RestWorkerData | { classify: ChunkContext };
if ('classify' in data) runClassifier(data.classify);
else
  stageRest(data).then(
    (done) => port.postMessage(done),
    (error: unknown) => port.postMessage(toThreadFailure(error)),
  );
