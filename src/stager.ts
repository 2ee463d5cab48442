// `npm run stager`, or a child process that `npm start` runs beside the server: stages the
// uploaded files waiting in the database (services/import/stager.ts). Any number of them, on
// any machine that reaches the database, share the queue.
import { readdirSync } from 'node:fs';
import { hostname, setPriority } from 'node:os';
import { consola } from 'consola';
import { parseConfig } from './config';
import { openMasterKey } from './crypto/master-keys';
import { openDatabase } from './database';
import { runUntilSignalled, type Start } from './lifecycle';
import { createContext } from './runtime';
import { startStager } from './services/import';

/** What a stop leaves of GATEWAY_SHUTDOWN_S for closing the pool. */
const CLOSE_MS = 2_000;

/**
 * The whole process at a lower priority (GATEWAY_STAGER_NICE). On Linux a nice value is each
 * thread's own, and a new thread takes its creator's: the threads already running (V8's,
 * libuv's) are lowered too, and later ones are created by lowered threads. Elsewhere the call
 * lowers the process. Best effort: a platform that refuses leaves it as it is.
 */
function lowerOwnPriority(nice: number): void {
  if (nice === 0) return;
  try {
    setPriority(0, nice);
    for (const task of readdirSync('/proc/self/task')) setPriority(Number(task), nice);
  } catch {
    // Not Linux, or not allowed: the priority stays as it was.
  }
}

const start: Start = async (signal, bound) => {
  const config = parseConfig(process.env);
  bound(config.GATEWAY_SHUTDOWN_S * 1000);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  lowerOwnPriority(config.GATEWAY_STAGER_NICE);
  // With DATABASE_URL (always, under `npm start`) this only checks migrations; alone, it
  // attaches to the embedded PostgreSQL of the data dir, or starts it.
  const database = await openDatabase(config, (m) => consola.info(m), { signal });
  const secretKey = await openMasterKey(config, database.url, (m) => consola.warn(m)).catch(async (error: unknown) => {
    await database.stop();
    throw error;
  });
  // The staging's transaction, its heartbeat, its progress, and LISTEN's own connection.
  const ctx = createContext({ config, databaseUrl: database.url, secretKey, processName: 'stager', poolSize: 4 });
  const id = `${hostname()}:${process.pid}`;
  const stager = await startStager(ctx, { id, staleS: config.GATEWAY_IMPORT_STALE_S, heartbeatS: config.GATEWAY_IMPORT_HEARTBEAT_S });
  consola.success(`Stager ${id} waiting for uploaded files`);
  return async () => {
    // Within GATEWAY_SHUTDOWN_S, however starved of CPU (it runs last in line): a staging that
    // has not handed its file back by then leaves its claim to go stale, and another stager
    // takes the file up again.
    const late = new Promise<void>((resolve) => setTimeout(resolve, Math.max(config.GATEWAY_SHUTDOWN_S * 1000 - CLOSE_MS, 0)).unref());
    await Promise.race([stager.stop(), late]);
    await Promise.race([ctx.close(), new Promise<void>((resolve) => setTimeout(resolve, CLOSE_MS).unref())]);
    await database.stop();
  };
};

const USAGE = `Usage:
  npm run stager     a stager alone (npm start already runs GATEWAY_STAGERS of them beside the server)
  Settings: the same environment as the server (docs/settings.md): DATABASE_URL or
  GATEWAY_DATA_DIR, GATEWAY_SECRET_KEY, GATEWAY_IMPORT_*.`;

if (process.argv.includes('--help') || process.argv.includes('-h')) process.stdout.write(`${USAGE}\n`);
else runUntilSignalled(start, 'Stager');
