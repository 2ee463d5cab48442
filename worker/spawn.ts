import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface WorkerLogSink {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface SupervisedWorker {
  /** SIGTERM, then SIGKILL if the worker has not exited within `boundMs`. */
  stop(boundMs: number): Promise<void>;
  pid(): number | undefined;
}

/** The process roles `npm start` runs beside the server. */
export type ChildRole = 'worker' | 'stager';

/**
 * Built (`npm start` runs dist/main.js, scripts/build.mjs), a child is dist/<role>.js beside
 * it, run by plain node; from source (tests, tsx), its entry (worker/main.ts, src/stager.ts)
 * through the same loader.
 */
function childCommand(role: ChildRole): string[] {
  if (import.meta.filename.endsWith('.js')) return [join(import.meta.dirname, `${role}.js`)];
  const entry = role === 'worker' ? join(import.meta.dirname, 'main.ts') : join(import.meta.dirname, '..', 'src', 'stager.ts');
  // The TypeScript loader, by absolute path: the child then does not depend on the working directory.
  return ['--import', import.meta.resolve('tsx'), entry];
}
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;

/**
 * Runs the worker (or a stager) as a child process beside the server (`npm start`) and
 * restarts it if it dies; its output goes to the server's terminal. The child gets the server's database URL
 * and master key through its environment, so it never starts a database of its own.
 */
export function superviseWorker(options: { env: NodeJS.ProcessEnv; log: WorkerLogSink; role?: ChildRole }): SupervisedWorker {
  const role = options.role ?? 'worker';
  const name = role === 'worker' ? 'Worker' : 'Stager';
  const command = childCommand(role);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let restartDelay = RESTART_MIN_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  function launch() {
    const started = Date.now();
    const proc = spawn(process.execPath, command, { env: options.env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    child = proc;
    // The IPC channel is only the child's lifeline: it closes when this process ends, however
    // it ends, and the child then stops (src/lifecycle.ts). Keep it from holding our loop open.
    proc.channel?.unref();
    exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        child = undefined;
        resolve();
        if (stopping) return;
        // A worker that ran a while gets a quick restart; one that keeps crashing, a slower one.
        restartDelay = Date.now() - started > RESTART_MAX_MS ? RESTART_MIN_MS : Math.min(restartDelay * 2, RESTART_MAX_MS);
        options.log.error(`${name} exited (${signal ?? `code ${code}`}); restarting in ${Math.round(restartDelay / 1000)} s`);
        restartTimer = setTimeout(launch, restartDelay);
      });
    });
  }
  launch();

  return {
    pid: () => child?.pid,
    async stop(boundMs) {
      stopping = true;
      clearTimeout(restartTimer);
      const proc = child;
      if (!proc) return;
      proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), boundMs)))]);
      clearTimeout(timer);
      if (!inTime) {
        options.log.warn(
          `${name} did not stop within ${boundMs} ms; killing it (${role === 'worker' ? 'its sends are recovered at the next start' : 'its file is taken up again'})`,
        );
        proc.kill('SIGKILL');
        await exited;
      }
    },
  };
}
