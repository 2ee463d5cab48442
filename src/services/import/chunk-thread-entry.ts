import { parentPort, workerData } from 'node:worker_threads';
import { createChunkStager, type ChunkContext, type ChunkRow } from './chunk-stager';

// Runs in the chunk thread (chunk-thread.ts): stages each chunk it is sent, in the order sent,
// and answers with it staged. It says when it has loaded; until then the event loop stages
// every chunk itself.
const port = parentPort!;
const stage = createChunkStager((workerData as { context: ChunkContext }).context);
port.on('message', (rows: ChunkRow[]) => port.postMessage(stage(rows)));
port.postMessage('loaded');
