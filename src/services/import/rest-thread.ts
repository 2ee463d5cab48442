import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportLimits } from '../../import/types';
import type { ChunkContext } from './chunk-stager';
import type { PackedBlock } from './raw-blocks';
import type { SheetSummary } from './sheet-walk';
import { fromThreadFailure, type ThreadFailure } from './staging-errors';
import { runOnlyWhenIdle } from '../../../db/run-only-when-idle';

let fromSources: Promise<string> | null = null;

/**
 * The thread's code. Built, it is bundled beside dist/main.js (scripts/build.mjs). From the
 * TypeScript sources (tsx, the tests), where a worker thread would get no TypeScript loader,
 * esbuild bundles it once per process, in memory (a loader in the thread cost ~0.5 s and
 * ~50 MB more).
 */
function threadCode(): Promise<URL | string> {
  if (!import.meta.url.endsWith('.ts')) return Promise.resolve(new URL('./import-rest-thread.js', import.meta.url));
  fromSources ??= import('esbuild').then(async ({ build }) => {
    const entry = fileURLToPath(new URL('./rest-thread-entry.ts', import.meta.url));
    const built = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
    return built.outputFiles[0]!.text;
  });
  return fromSources;
}

/** The thread's heap, at most: a file of GATEWAY_MAX_BODY_BYTES read as text, with room to parse it. A thread past it ends, and its staging fails. */
const THREAD_HEAP_MB = 256;
/**
 * The thread's young generation (its classifier's too), at most. By default V8 lets a thread's
 * grow to 48 MB (32 MB seen while staging), and a staging then streams its rows' strings
 * through memory the event loop and other accounts' requests would find in the caches: two stagings
 * at once, bench:uploads, p95 of the other account's call 6.8–8.6 ms against 7.4–10.4 ms
 * (six storms each); at 3 MB 7.2–8.6 ms, but a lone import was 10 % slower (bench:import).
 * At 8 MB a lone import is as fast, and its peak RSS ~50 MB lower.
 */
const THREAD_YOUNG_MB = 8;

/** The upload's file, as the thread opens it again: its bytes, the sheets chosen, the reader's limits. */
export interface UploadedFile {
  bytes: Uint8Array;
  chosen: readonly string[];
  limits: ImportLimits;
}

/** What the thread stages: the upload's file, past the rows the event loop staged. Plain data (a structured clone). */
export interface RestInput extends UploadedFile {
  /** Rows already staged: the thread reads past them. */ skip: number;
  maxRows: number;
  context: ChunkContext;
}

/**
 * From the thread: the ids of its threads (`thread`, to be put under SCHED_IDLE from the main
 * thread), then a chunk staged (`staged`: the last row index in it), then `done`, or `failed`.
 */
export type RestMessage =
  | { kind: 'thread'; tid: number }
  | { kind: 'rows'; copy: string; vins: string[]; staged: number; blocks: PackedBlock[] }
  | { kind: 'done'; staged: number; summaries: SheetSummary[] }
  | ThreadFailure;

export type StagedRows = Extract<RestMessage, { kind: 'rows' }>;

/** The thread's code as it starts its classifier: a file's URL, or the bundled text (eval). */
export interface ThreadCode {
  code: string;
  eval: boolean;
}

/** What the rest thread gets: its input, its own code, and whether it classifies in a thread of its own. */
export type RestWorkerData = RestInput & { thread: ThreadCode; classifier: boolean };

// Staging threads running in this process, classifiers included.
let threadsInUse = 0;

/**
 * A staging's threads: two (reader and classifier, a pipeline) while the stagings' threads
 * still fit the machine's cores, else one. On two cores a lone import stages about a third
 * faster with two, while two imports at once with two each left other accounts' requests
 * slower (bench:import, bench:uploads).
 */
export function stagingThreads(inUse: number, cores: number): 1 | 2 {
  return inUse + 2 <= cores ? 2 : 1;
}

/**
 * Stages the rest of an upload in a worker thread, so the event loop, which answers every
 * account's requests, only writes what the thread sends: reading the file, classifying each row
 * and packing its raw cells run beside it (on two cores, a 100,000-row csv used to keep the
 * event loop busy more than half of its staging). `write` takes each chunk in order; the
 * thread sends the next ones only as they are written. Resolves with the thread's walk of
 * the whole file; rejects with the thread's error (an AppError as such), or `aborted()` when
 * `signal` aborts, the thread stopped either way.
 */
export async function stageInThread(
  input: RestInput,
  write: (rows: StagedRows) => Promise<void>,
  signal: AbortSignal | undefined,
  aborted: () => Error,
): Promise<{ staged: number; summaries: SheetSummary[] }> {
  const code = await threadCode();
  return new Promise((resolve, reject) => {
    const threads = stagingThreads(threadsInUse, availableParallelism());
    threadsInUse += threads;
    const thread: ThreadCode = typeof code === 'string' ? { code, eval: true } : { code: code.href, eval: false };
    const workerData: RestWorkerData = { ...input, thread, classifier: threads === 2 };
    const worker = new Worker(code, { eval: thread.eval, workerData, resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, maxYoungGenerationSizeMb: THREAD_YOUNG_MB } });
    let written = Promise.resolve();
    let settled = false;
    const settle = (end: () => void) => {
      if (settled) return;
      settled = true;
      threadsInUse -= threads;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      end();
    };
    const onAbort = () => settle(() => reject(aborted()));
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    worker.on('message', (message: RestMessage) => {
      if (message.kind === 'thread') {
        runOnlyWhenIdle(message.tid);
      } else if (message.kind === 'rows') {
        // In order; after a failed write, the chain stays rejected and writes nothing more.
        written = written.then(async () => {
          if (settled) return;
          await write(message);
          if (!settled) worker.postMessage('ack');
        });
        written.catch((error: unknown) => settle(() => reject(error)));
      } else if (message.kind === 'done') {
        written.then(
          () => settle(() => resolve(message)),
          () => undefined,
        );
      } else {
        settle(() => reject(fromThreadFailure(message)));
      }
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (exitCode) => settle(() => reject(new Error(`the import thread exited (${exitCode})`))));
  });
}
