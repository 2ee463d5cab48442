import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDb, type DbHandle } from '../../db/client';
import { clusterDir } from '../../db/embedded-placement';
import { ConfigError, parseConfig, type Config } from '../config';
import { openDatabase } from '../database';
import { databaseConnection } from '../database-connection';

export interface CliOptions {
  /** `create`: an embedded database may be made in an empty data dir (restore). */
  database?: 'existing' | 'create';
  /** `false`: the schema is left as found (backup, restore). */
  migrate?: boolean;
  /** Checks made before any database is opened, let alone created (a restore's archive and passphrase). */
  before?: (args: string[], config: Config) => Promise<void>;
}

/**
 * Runs a command-line tool against the product's database: DATABASE_URL, or the embedded one
 * in the data dir (attached to while the server runs, started and stopped otherwise).
 * Messages go to stderr so that the last line of stdout is the tool's answer alone.
 */
export async function runCli(usage: string, fn: (db: DbHandle, args: string[], config: Config) => Promise<void>, options: CliOptions = {}): Promise<void> {
  let stop = async () => {};
  let handle: DbHandle | undefined;
  await runTool(usage, async (args, config) => {
    await options.before?.(args, config);
    // A tool must never create a second, empty database: a key it issued there would be
    // refused by the server, which reads another one.
    const pgDir = clusterDir(resolve(config.GATEWAY_DATA_DIR));
    if (!config.DATABASE_URL && options.database !== 'create' && !existsSync(join(pgDir, 'PG_VERSION'))) {
      throw new UsageError(
        `Nu există nicio bază de date în ${pgDir}. Dați aceleași GATEWAY_DATA_DIR (sau DATABASE_URL) ca serverului, ori porniți întâi serverul (npm start) ca să o creeze.`,
      );
    }
    const database = await openDatabase(config, () => {}, { migrate: options.migrate, tool: true });
    stop = database.stop;
    handle = createDb(database.url, { max: 2, connection: databaseConnection(config, database.url) });
    await fn(handle, args, config);
  }).finally(async () => {
    await handle?.close();
    await stop();
  });
}

/** A tool's settings, usage and failures (exit 2 for usage and settings, 1 otherwise), without a database. */
export async function runTool(usage: string, fn: (args: string[], config: Config) => Promise<void>): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  try {
    await fn(args, parseConfig(process.env));
  } catch (error) {
    process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
}

export class UsageError extends Error {}

export function say(message: string): void {
  process.stderr.write(`${message}\n`);
}
