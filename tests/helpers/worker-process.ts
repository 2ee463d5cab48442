import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TEST_SECRET } from './app';
import { FAST_WORKER_ENV, waitFor, type WorkerHarness } from './worker';

const ROOT = join(import.meta.dirname, '..', '..');

export interface WorkerProcess {
  id: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

/** A real worker process (`node --import tsx worker/main.ts`) on the harness's database and simulator. */
export async function spawnWorker(h: WorkerHarness, id: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'worker', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...FAST_WORKER_ENV,
      GATEWAY_LOG_LEVEL: 'info',
      DATABASE_URL: h.database.url,
      GATEWAY_SECRET_KEY: TEST_SECRET,
      GATEWAY_REGISTRY_URL: h.sim.url,
      GATEWAY_DATA_DIR: h.dataDir,
      GATEWAY_WORKER_ID: id,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(
    async () => {
      if (gone) throw new Error(`worker ${id} exited during start-up:\n${out}`);
      const rows = await h.app.sql`SELECT 1 FROM worker_state WHERE worker_id = ${id} AND heartbeat_at > now() - interval '5 seconds'`;
      return rows.length > 0 || undefined;
    },
    20_000,
    `worker process ${id} to start`,
  );
  return { id, child, exited, output: () => out };
}

/** Ends a worker process still running at the end of a test, so none outlives the run. */
export async function killIfRunning(p: WorkerProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
}
