import { constants, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createChunkStager, type ChunkContext, type ChunkRow } from './chunk-stager';

// Runs in the chunk thread (chunk-thread.ts): stages each chunk it is sent, in the order sent,
// and answers with it staged. It says when it has loaded; until then the event loop stages
// every chunk itself.
//
// The thread runs at the lowest CPU priority: on Linux a nice value belongs to a thread, and
// setPriority of "this process" (pid 0) sets the calling thread's alone. So on a busy machine
// the event loop, which answers every other account's requests, gets the cores first and the
// staging takes what is left. Where that is refused, the thread runs as it is.
try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {}
const port = parentPort!;
const stage = createChunkStager((workerData as { context: ChunkContext }).context);
port.on('message', (rows: ChunkRow[]) => port.postMessage(stage(rows)));
port.postMessage('loaded');
