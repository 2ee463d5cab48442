import { serve } from '@hono/node-server';
import { consola } from 'consola';
import { parseSimUsers } from '../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../worker/registry/simulator';
import { superviseWorker, type SupervisedWorker } from '../worker/spawn';
import type { Server } from 'node:http';
import { createApp } from './app';
import { limitServer, serverOptions } from './http/server-limits';
import { environmentName, parseConfig, type Config } from './config';
import { resolveSecretKey } from './crypto/secret-key';
import { openDatabase } from './database';
import { createContext } from './runtime';
import { runUntilSignalled } from './lifecycle';

/**
 * Without GATEWAY_REGISTRY_URL the simulated registry runs in this process (mediu sandbox), so
 * a fresh clone shows the whole flow; a worker started on its own finds it on GATEWAY_SIM_PORT.
 */
async function startRegistry(config: Config): Promise<{ url: string; sim?: Simulator }> {
  if (config.GATEWAY_REGISTRY_URL) return { url: config.GATEWAY_REGISTRY_URL };
  const users = parseSimUsers(config.GATEWAY_SIM_USERS);
  const sim = await startSimulator({ port: config.GATEWAY_SIM_PORT, users }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    // Another gateway (or a standalone simulator) holds the port: our own worker is told the
    // address anyway, so any free port serves.
    consola.warn(`GATEWAY_SIM_PORT ${config.GATEWAY_SIM_PORT} is in use; the simulated registry takes a free port`);
    return startSimulator({ port: 0, users });
  });
  consola.info(`Simulated registry (sandbox) on ${sim.url}; logins: ${[...users.keys()].join(', ')} (GATEWAY_SIM_USERS)`);
  return { url: sim.url, sim };
}

async function start() {
  const config = parseConfig(process.env);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  const secretKey = resolveSecretKey(config, (m) => consola.warn(m));
  const database = await openDatabase(config, (m) => consola.info(m));
  const ctx = createContext({ config, databaseUrl: database.url, secretKey, processName: 'server', poolSize: 20 });
  const registry = await startRegistry(config);
  let worker: SupervisedWorker | undefined;
  if (config.GATEWAY_RUN_WORKER) {
    // The child shares this database and key; it must not start an embedded database itself.
    const env = { ...process.env, DATABASE_URL: database.url, GATEWAY_SECRET_KEY: secretKey, GATEWAY_REGISTRY_URL: registry.url };
    worker = superviseWorker({ env, log: consola });
  }
  const app = createApp(ctx);
  const server = serve({ fetch: app.fetch, port: config.PORT, serverOptions: serverOptions(config) }, (info) => {
    consola.success(`Gateway listening on http://localhost:${info.port} (mediu: ${environmentName(config)})`);
  });

  limitServer(server as Server, config);

  // Stop order: stop taking requests, let the worker finish or release its sends, then the
  // simulator it may still be talking to, then our pool; the database goes last.
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await worker?.stop((config.GATEWAY_WORKER_SHUTDOWN_S + 5) * 1000);
    await registry.sim?.close();
    await ctx.close();
    await database.stop();
  };
}

runUntilSignalled(start);
