import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChunkContext, ChunkRow, StagedChunk } from './chunk-stager';

let fromSources: Promise<string> | null = null;

/**
 * The thread's code. Built, it is bundled beside dist/main.js (scripts/build.mjs). From the
 * TypeScript sources (tsx, the tests), where a worker thread would get no TypeScript loader,
 * esbuild bundles it once per process, in memory (a loader in the thread cost ~0.5 s and
 * ~50 MB more).
 */
function threadCode(): Promise<URL | string> {
  if (!import.meta.url.endsWith('.ts')) return Promise.resolve(new URL('./import-chunk-thread.js', import.meta.url));
  fromSources ??= import('esbuild').then(async ({ build }) => {
    const entry = fileURLToPath(new URL('./chunk-thread-entry.ts', import.meta.url));
    const built = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
    return built.outputFiles[0]!.text;
  });
  return fromSources;
}

/** Chunks sent to the thread and not back yet, at most: enough to keep it busy between two turns of the event loop. */
const IN_FLIGHT = 2;

export interface ChunkThread {
  /** Whether it takes a chunk now: loaded, and fewer than IN_FLIGHT chunks out. */
  readonly free: boolean;
  /** The chunk staged by the thread; by `stageHere`, on the event loop, if the thread ends first. */
  stage(rows: ChunkRow[]): Promise<StagedChunk>;
  /** Rows the thread staged, and why it ended early (null if it did not). */
  report(): { rows: number; failure: string | null };
  /** Ends the thread. Chunks still out are dropped: the staging is over, or failed. */
  close(): Promise<void>;
}

/**
 * A worker thread staging chunks of a batch's rows (chunk-stager.ts) beside the event loop,
 * which reads the file, seals the raw blocks, stages the chunks the thread is not free for and
 * writes every chunk's COPY lines: on two cores, the rest of a 100,000-row file stages about
 * 1.5 times as fast (docs/import.md, Bench). The thread only ever speeds a staging up: one
 * that fails or exits hands its chunks back to `stageHere`.
 */
export function startChunkThread(context: ChunkContext, stageHere: (rows: readonly ChunkRow[]) => StagedChunk): ChunkThread {
  let worker: Worker | null = null;
  const out: Array<{ rows: ChunkRow[]; resolve(chunk: StagedChunk): void; reject(error: unknown): void }> = [];
  let state: 'loading' | 'loaded' | 'ended' = 'loading';
  let staged = 0;
  let failure: string | null = null;
  const end = (why: string) => {
    if (state === 'ended') return;
    state = 'ended';
    failure = why;
    for (const chunk of out.splice(0)) {
      try {
        chunk.resolve(stageHere(chunk.rows));
      } catch (error) {
        chunk.reject(error);
      }
    }
  };
  const start = async () => {
    const code = await threadCode();
    if (state === 'ended') return;
    worker = new Worker(code, { eval: typeof code === 'string', workerData: { context } });
    worker.on('message', (message: StagedChunk | 'loaded') => {
      if (message === 'loaded') {
        if (state === 'loading') state = 'loaded';
        return;
      }
      const chunk = out.shift();
      if (!chunk) return;
      staged += chunk.rows.length;
      chunk.resolve(message);
    });
    worker.on('error', (error) => end(error.message));
    worker.on('exit', (code) => end(`the thread exited (${code})`));
  };
  start().catch((error: Error) => end(error.message));
  return {
    get free() {
      return state === 'loaded' && out.length < IN_FLIGHT;
    },
    stage(rows) {
      return new Promise((resolve, reject) => {
        out.push({ rows, resolve, reject });
        worker!.postMessage(rows);
      });
    },
    report: () => ({ rows: staged, failure }),
    async close() {
      state = 'ended';
      out.length = 0;
      await worker?.terminate();
    },
  };
}
