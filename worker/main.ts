// `npm run worker`, or the child process that `npm start` runs beside the server.
import { consola } from 'consola';
import { parseConfig } from '../src/config';
import { resolveSecretKey } from '../src/crypto/secret-key';
import { openDatabase } from '../src/database';
import { createWorkerContext } from './context';
import { startWorker } from './runner';
import { assertWorkerSettings } from './settings';
import { helpRequested } from '../src/cli/run';
import { runUntilSignalled } from '../src/lifecycle';

const USAGE = `Usage:
  npm run worker    the worker alone (settings: README, "The worker and the simulated registry")`;

async function start() {
  const config = parseConfig(process.env);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  assertWorkerSettings(config);
  const secretKey = resolveSecretKey(config, (m) => consola.warn(m));
  // With DATABASE_URL (always, under `npm start`) this only checks migrations; alone, it
  // attaches to the embedded PostgreSQL of the data dir, or starts it.
  const database = await openDatabase(config, (m) => consola.info(m));
  // Alone and without a registry address, it talks to the simulator of `npm run registry:sim`.
  const registryUrl = config.GATEWAY_REGISTRY_URL ?? `http://127.0.0.1:${config.GATEWAY_SIM_PORT}`;
  const ctx = createWorkerContext({ config, databaseUrl: database.url, secretKey, registryUrl, log: consola });
  const worker = await startWorker(ctx);
  consola.success(`Worker ${ctx.workerId} sending to ${registryUrl}`);
  return async () => {
    consola.info(`Worker stopping (at most ${config.GATEWAY_WORKER_SHUTDOWN_S} s for sends in flight)`);
    await worker.stop();
    await ctx.close();
    await database.stop();
  };
}

if (!helpRequested(USAGE)) runUntilSignalled(start);
