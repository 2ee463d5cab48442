import { consola } from 'consola';
import { isLostConnectionWrite } from '../db/unavailable';
import { ConfigError } from './config';

/** What a process started: how to stop it, and how long the whole stop may take. */
export type Start = (signal: AbortSignal, bound: (ms: number) => void) => Promise<() => Promise<void>>;

/** GATEWAY_SHUTDOWN_S's default, for a signal that comes before the settings are read. */
const DEFAULT_BOUND_MS = 30_000;

/**
 * Runs a process's `start`, which answers how to stop what it started. Signals are handled
 * from the first moment: one that arrives during start-up aborts it (`signal`: the step in
 * progress, initdb, the database's start or the migrations, is ended, and what was started is
 * stopped), or, once started, stops everything, once, and says when it is done. Either way
 * the process ends within the bound `start` gives once it has read its settings
 * (GATEWAY_SHUTDOWN_S): past it, it exits 1 with what is left ended by its own exit hooks
 * (db/embedded-server.ts). A start-up failure exits 1 with its message. A child process (the
 * worker under `npm start`) also stops when its parent is gone, however the parent ended
 * (SIGKILL included): its IPC channel closes, or it is re-parented.
 */
export function runUntilSignalled(start: Start, name = 'Gateway'): void {
  const aborted = new AbortController();
  let boundMs = DEFAULT_BOUND_MS;
  const started = start(aborted.signal, (ms) => {
    boundMs = ms;
  });
  let stopping = false;
  async function shutdown(reason: string) {
    if (stopping) return;
    stopping = true;
    consola.info(`${reason}: stopping`);
    setTimeout(() => {
      consola.error(`${name} not stopped within ${boundMs / 1000} s (GATEWAY_SHUTDOWN_S): exiting`);
      process.exit(1);
    }, boundMs).unref();
    aborted.abort(new StartAborted(reason));
    const stop = await started.catch(() => undefined);
    await stop?.();
    consola.success(`${name} stopped`);
    process.exit(0);
  }
  // A database failover must not end the process (db/unavailable.ts); anything else still does.
  process.on('uncaughtException', (error) => {
    if (isLostConnectionWrite(error)) return void consola.warn('A database connection was lost under a transaction (rolled back by the server)');
    consola.error(error);
    process.exit(1);
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  watchParent(() => void shutdown('parent process gone'));

  started.catch((error: unknown) => {
    // A start aborted by a signal is that signal's stop, not a failure.
    if (stopping) return;
    consola.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}

/** The reason a start was aborted: the process was asked to stop. */
export class StartAborted extends Error {}

/** Calls `lost` once when the process that spawned this one with an IPC channel is gone. */
function watchParent(lost: () => void): void {
  if (!process.send) return;
  const parent = process.ppid;
  process.once('disconnect', lost);
  // Belt and braces: a re-parented process (to PID 1 or a subreaper) has lost its parent too.
  setInterval(() => {
    if (process.ppid !== parent) lost();
  }, 1_000).unref();
}
