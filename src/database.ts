import { createDb } from '../db/client';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import type { Config } from './config';

/**
 * The database URL to use: DATABASE_URL, or the embedded PostgreSQL in the data dir (started
 * here, or attached to when the server already runs it). Migrations are applied either way.
 */
export async function openDatabase(config: Config, log: (message: string) => void): Promise<{ url: string; stop: () => Promise<void> }> {
  let url = config.DATABASE_URL;
  let stop = async () => {};
  if (!url) {
    preserveExitCode();
    const embedded = await startEmbedded({ dataDir: config.GATEWAY_DATA_DIR, onLog: log });
    url = embedded.url;
    stop = embedded.stop;
    log(`Embedded PostgreSQL in ${embedded.pgDir}`);
  }
  const { sql, close } = createDb(url, { max: 1 });
  try {
    const applied = await migrate(sql);
    if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
  } finally {
    await close();
  }
  return { url, stop };
}
