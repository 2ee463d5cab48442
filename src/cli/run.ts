import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDb, type DbHandle } from '../../db/client';
import { clusterDir } from '../../db/embedded-placement';
import { ConfigError, parseConfig, type Config } from '../config';
import { openDatabase } from '../database';
import { databaseConnection } from '../database-connection';

/**
 * Runs a command-line tool against the product's database: DATABASE_URL, or the embedded one
 * in the data dir (attached to while the server runs, started and stopped otherwise).
 * Messages go to stderr so that the last line of stdout is the tool's answer alone.
 */
export async function runCli(usage: string, fn: (db: DbHandle, args: string[], config: Config) => Promise<void>): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  let stop = async () => {};
  let handle: DbHandle | undefined;
  try {
    const config = parseConfig(process.env);
    // A tool must never create a second, empty database: a key it issued there would be
    // refused by the server, which reads another one.
    const pgDir = clusterDir(resolve(config.GATEWAY_DATA_DIR));
    if (!config.DATABASE_URL && !existsSync(join(pgDir, 'PG_VERSION'))) {
      throw new UsageError(
        `Nu există nicio bază de date în ${pgDir}. Dați aceleași GATEWAY_DATA_DIR (sau DATABASE_URL) ca serverului, ori porniți întâi serverul (npm start) ca să o creeze.`,
      );
    }
    const database = await openDatabase(config, () => {});
    stop = database.stop;
    handle = createDb(database.url, { max: 2, connection: databaseConnection(config, database.url) });
    await fn(handle, args, config);
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
