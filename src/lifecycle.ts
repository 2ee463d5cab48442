import { consola } from 'consola';
import { isLostConnectionWrite } from '../db/unavailable';
import { ConfigError } from './config';

/**
 * Runs a process's `start`, which answers how to stop what it started. Signals are handled
 * from the first moment: one that arrives during start-up waits for it to finish, then stops
 * everything it started, once, and says when it is done. A start-up failure exits 1 with its
 * message. A child process (the worker under `npm start`) also stops when its parent is gone,
 * however the parent ended (SIGKILL included): its IPC channel closes, or it is re-parented.
 */
export function runUntilSignalled(start: () => Promise<() => Promise<void>>, name = 'Gateway'): void {
  const started = start();
  let stopping = false;
  async function shutdown(reason: string) {
    if (stopping) return;
    stopping = true;
    consola.info(`${reason}: stopping`);
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
    consola.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}

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
