import { consola } from 'consola';
import { ConfigError } from './config';

/**
 * Runs a process's `start`, which answers how to stop what it started. Signals are handled
 * from the first moment: one that arrives during start-up waits for it to finish, then stops
 * everything it started. A start-up failure exits 1 with its message.
 */
export function runUntilSignalled(start: () => Promise<() => Promise<void>>): void {
  const started = start();
  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    consola.info(`${signal}: stopping`);
    const stop = await started.catch(() => undefined);
    await stop?.();
    process.exit(0);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A child started with an IPC channel (the worker under `npm start`) stops when its parent is
  // gone: the channel closes even when the parent was killed outright.
  if (process.send) process.once('disconnect', () => void shutdown('parent process gone'));

  started.catch((error: unknown) => {
    consola.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}
