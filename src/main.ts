import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { consola } from 'consola';
import { parseSimUsers } from '../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../worker/registry/simulator';
import { superviseWorker, type SupervisedWorker } from '../worker/spawn';
import type { Server } from 'node:http';
import { assertWorkerSettings } from '../worker/settings';
import { createApp } from './app';
import { limitServer, serverOptions } from './http/server-limits';
import { ConfigError, environmentName, parseConfig, type Config } from './config';
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

type FetchHandler = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * The HTTP port is taken before anything else starts: a port in use stops this start with a
 * message, before a database, a simulator or a worker exists to be left behind. Until the app
 * is ready, requests are answered 503.
 */
async function bindServer(config: Config): Promise<{ server: Server; serve: (handler: FetchHandler) => void }> {
  let handler: FetchHandler = () => new Response('{"status":"pornire"}', { status: 503, headers: { 'Content-Type': 'application/json' } });
  const server = createAdaptorServer({ fetch: (request, env) => handler(request, env), serverOptions: serverOptions(config) }) as Server;
  limitServer(server, config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new ConfigError(`Portul ${config.HOST}:${config.PORT} este deja folosit (alt gateway pornit?); opriți-l sau alegeți alt PORT.`) : error),
    );
    server.listen(config.PORT, config.HOST, resolve);
  });
  return { server, serve: (next) => (handler = next) };
}

async function start() {
  const config = parseConfig(process.env);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  if (config.GATEWAY_RUN_WORKER) assertWorkerSettings(config);
  const { server, serve } = await bindServer(config);
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
  serve(createApp(ctx).fetch);
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  consola.success(`Gateway listening on http://${host}:${bound.port} (mediu: ${environmentName(config)})`);

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
