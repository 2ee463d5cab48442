import { createDb, type Sql } from '../db/client';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { keepsSessions } from '../db/session-probe';
import { ConfigError, type Config } from './config';
import { databaseConnection, explainConnectionError } from './database-connection';

/**
 * The database URL to use: DATABASE_URL, or the embedded PostgreSQL in the data dir (started
 * here, or attached to when the server already runs it). Migrations are applied either way,
 * without the statement timeout: an index built on a large table may take longer.
 */
export async function openDatabase(
  config: Config,
  log: (message: string) => void,
  // `migrate: false` for the tools that must see the database as it is (backup, restore); `signal`
  // ends a first start's long steps (src/lifecycle.ts); `tool` for every command-line tool (a
  // server or worker waits for a database a tool started, db/embedded.ts).
  options: { migrate?: boolean; signal?: AbortSignal; tool?: boolean } = {},
): Promise<{ url: string; stop: () => Promise<void> }> {
  const { signal } = options;
  let url = config.DATABASE_URL;
  let stop = async () => {};
  // TLS settings are checked (and the CA file read) before anything is started.
  const ssl = url ? databaseConnection(config, url).ssl : undefined;
  if (!url) {
    preserveExitCode();
    const embedded = await startEmbedded({ dataDir: config.GATEWAY_DATA_DIR, onLog: log, signal, tool: options.tool });
    url = embedded.url;
    stop = embedded.stop;
    log(`Embedded PostgreSQL in ${embedded.pgDir}`);
  }
  const { sql, close } = createDb(url, { max: 2, connection: { ssl } });
  // Stopped during the migrations: their connections are cut, so the transaction rolls back at once.
  const cut = () => void sql.end({ timeout: 0 });
  signal?.addEventListener('abort', cut, { once: true });
  try {
    const applied = options.migrate === false ? [] : await migrate(sql);
    signal?.throwIfAborted();
    if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
    if (config.DATABASE_URL) await assertKeepsSessions(sql);
  } catch (error) {
    // A database this process started is not left running by a start that failed.
    await stop();
    signal?.throwIfAborted();
    throw explainConnectionError(error);
  } finally {
    signal?.removeEventListener('abort', cut);
    await close();
  }
  return { url, stop };
}

/**
 * Refuses a DATABASE_URL whose connections do not keep their session (db/session-probe.ts):
 * the worker and the stagers LISTEN, which a pooler in transaction mode breaks. The server
 * checks too, so that a deployment learns it at its first start.
 */
export async function assertKeepsSessions(sql: Pick<Sql, 'reserve'>): Promise<void> {
  if (await keepsSessions(sql)) return;
  throw new ConfigError(
    'Invalid configuration:\n  DATABASE_URL: its connections do not keep their session (a pooler in transaction mode, such as PgBouncer with pool_mode=transaction?). Servers and workers hold session advisory locks and the worker LISTENs: give them PostgreSQL directly or a pooler in session mode (docs/operations.md, Several servers and workers on one database).',
  );
}
