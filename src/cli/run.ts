import { createDb, type DbHandle } from '../../db/client';
import { ConfigError, parseConfig } from '../config';
import { openDatabase } from '../database';

/**
 * Runs a command-line tool against the product's database: DATABASE_URL, or the embedded one
 * in the data dir (attached to while the server runs, started and stopped otherwise).
 * Messages go to stderr so that the last line of stdout is the tool's answer alone.
 */
export async function runCli(fn: (db: DbHandle, args: string[]) => Promise<void>): Promise<void> {
  let stop = async () => {};
  let handle: DbHandle | undefined;
  try {
    const config = parseConfig(process.env);
    const database = await openDatabase(config, () => {});
    stop = database.stop;
    handle = createDb(database.url, { max: 2 });
    await fn(handle, process.argv.slice(2));
  } catch (error) {
    process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    await handle?.close();
    await stop();
  }
}

export class UsageError extends Error {}

export function say(message: string): void {
  process.stderr.write(`${message}\n`);
}
