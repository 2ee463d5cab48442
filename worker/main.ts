// `npm run worker`, or the child process that `npm start` runs beside the server.
import { consola } from 'consola';
import { type Config, parseConfig } from '../src/config';
import { openMasterKey } from '../src/crypto/master-keys';
import { openDatabase } from '../src/database';
import { createWorkerContext } from './context';
import { startWorker } from './runner';
import { assertWorkerSettings } from './settings';
import { runUntilSignalled, type Start } from '../src/lifecycle';
import { runningSimulator, simulatorFile } from './registry/sim-discovery';

async function sandboxRegistryUrl(config: Config): Promise<string> {
  const running = await runningSimulator(config.GATEWAY_DATA_DIR);
  if (running) return running;
  const fallback = `http://127.0.0.1:${config.GATEWAY_SIM_PORT}`;
  consola.warn(
    `No simulated registry runs for this data dir (${simulatorFile(config.GATEWAY_DATA_DIR)}): sending to ${fallback} (GATEWAY_SIM_PORT); start one with npm start or npm run registry:sim`,
  );
  return fallback;
}

const start: Start = async (signal, bound) => {
  const config = parseConfig(process.env);
  bound(config.GATEWAY_SHUTDOWN_S * 1000);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  assertWorkerSettings(config);
  // With DATABASE_URL (always, under `npm start`) this only checks migrations; alone, it
  // attaches to the embedded PostgreSQL of the data dir, or starts it.
  const database = await openDatabase(config, (m) => consola.info(m), { signal });
  const secretKey = await openMasterKey(config, database.url, (m) => consola.warn(m)).catch(async (error: unknown) => {
    await database.stop();
    throw error;
  });
  // Alone and without a registry address (the sandbox), it talks to the simulator running for
  // the data dir, whichever process runs it and whatever port it took.
  const registryUrl = config.GATEWAY_REGISTRY_URL ?? (await sandboxRegistryUrl(config));
  const ctx = createWorkerContext({ config, databaseUrl: database.url, secretKey, registryUrl, log: consola });
  const worker = await startWorker(ctx);
  consola.success(`Worker ${ctx.workerId} sending to ${registryUrl}`);
  return async () => {
    consola.info(`Worker stopping (at most ${config.GATEWAY_WORKER_SHUTDOWN_S} s for sends in flight)`);
    await worker.stop();
    await ctx.close();
    await database.stop();
  };
};

const USAGE = `Usage:
  npm run worker     the worker alone (npm start already runs one beside the server)
  Settings: the same environment as the server (docs/settings.md): DATABASE_URL or
  GATEWAY_DATA_DIR, GATEWAY_SECRET_KEY, GATEWAY_REGISTRY_URL, GATEWAY_WORKER_*.`;

if (process.argv.includes('--help') || process.argv.includes('-h')) process.stdout.write(`${USAGE}\n`);
else runUntilSignalled(start, 'Worker');
