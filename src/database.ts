import { createDb } from '../db/client';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import type { Config } from './config';
import { databaseConnection, explainConnectionError } from './database-connection';

/**
 * The database URL to use: DATABASE_URL, or the embedded PostgreSQL in the data dir (started
 * here, or attached to when the server already runs it). Migrations are applied either way,
 * without the statement timeout: an index built on a large table may take longer.
 */
export async function openDatabase(config: Config, log: (message: string) => void): Promise<{ url: string; stop: () => Promise<void> }> {
  let url = config.DATABASE_URL;
  let stop = async () => {};
  // TLS settings are checked (and the CA file read) before anything is started.
  const ssl = url ? databaseConnection(config, url).ssl : undefined;
  if (!url) {
    preserveExitCode();
    const embedded = await startEmbedded({ dataDir: config.GATEWAY_DATA_DIR, onLog: log });
    url = embedded.url;
    stop = embedded.stop;
    log(`Embedded PostgreSQL in ${embedded.pgDir}`);
  }
  const { sql, close } = createDb(url, { max: 1, connection: { ssl } });
  try {
    const applied = await migrate(sql);
    if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    throw explainConnectionError(error);
  } finally {
    await close();
  }
  return { url, stop };
}
