import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDb, type DbHandle } from '../../db/client';
import { ConfigError, parseConfig, type Config } from '../config';
import { openDatabase } from '../database';

/**
 * A tool never creates a database: without DATABASE_URL it needs the embedded one that
 * `npm start` made in the data dir. Looking in the wrong place (GATEWAY_DATA_DIR not exported
 * for the tool too) used to create a second, empty database whose keys the server refused.
 */
function assertDatabaseExists(config: Config): void {
  if (config.DATABASE_URL || existsSync(join(config.GATEWAY_DATA_DIR, 'pg', 'PG_VERSION'))) return;
  throw new ConfigError(
    `Nu există o bază de date în ${resolve(config.GATEWAY_DATA_DIR)} (GATEWAY_DATA_DIR). Porniți întâi gateway-ul (npm start) ` +
      'sau dați aceeași valoare GATEWAY_DATA_DIR ca serverului, ori DATABASE_URL.',
  );
}

/** `--help` or `-h` anywhere: the usage on stdout, exit 0, and nothing else done. */
export function helpRequested(usage: string): boolean {
  if (!process.argv.slice(2).some((a) => a === '--help' || a === '-h')) return false;
  process.stdout.write(`${usage}\n`);
  return true;
}

/**
 * Runs a command-line tool against the product's database: DATABASE_URL, or the embedded one
 * in the data dir (attached to while the server runs, started and stopped otherwise).
 * Messages go to stderr so that the last line of stdout is the tool's answer alone.
 */
export async function runCli(usage: string, fn: (db: DbHandle, args: string[]) => Promise<void>): Promise<void> {
  if (helpRequested(usage)) return;
  let stop = async () => {};
  let handle: DbHandle | undefined;
  try {
    const config = parseConfig(process.env);
    assertDatabaseExists(config);
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
