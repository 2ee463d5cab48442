import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../db/client';
import { startEmbedded, type EmbeddedDb } from '../../db/embedded';
import { reservePort } from './ports';
import { migrate } from '../../db/migrate';

export interface OwnDatabase {
  /** The product's connection (the app role), the same before and after a restart. */
  url: string;
  /** A fast shutdown: every connection is cut, as in a failover. */
  stop(): Promise<void>;
  /** The same server again: same data dir, same port, same roles. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its data dir. */
  close(): Promise<void>;
}

/**
 * A PostgreSQL of this test file's own (the run's shared one must never stop), migrated, that
 * the test stops and starts again on the same port and data dir to play a database failover.
 */
export async function startOwnDatabase(): Promise<OwnDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-failover-pg-'));
  const port = await reservePort();
  let running: EmbeddedDb | undefined = await startEmbedded({ dataDir, port });
  const { sql, close } = createDb(running.url, { max: 1 });
  try {
    await migrate(sql);
  } finally {
    await close();
  }
  const url = running.url;
  return {
    url,
    async stop() {
      await running?.stop();
      running = undefined;
    },
    async start() {
      running = await startEmbedded({ dataDir, port });
    },
    async close() {
      await running?.stop();
      running = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
