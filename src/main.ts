import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { consola } from 'consola';
import { parseSimUsers } from '../worker/registry/sim-state';
import { sandboxRegistry, type SandboxRegistry } from '../worker/registry/sim-discovery';
import { superviseWorker, type SupervisedWorker } from '../worker/spawn';
import { createApp } from './app';
import { ConfigError, environmentName, parseConfig, type Config } from './config';
import { assertWorkerSettings } from '../worker/settings';
import { limitServer, serverOptions } from './http/server-limits';
import { openMasterKey } from './crypto/master-keys';
import { openDatabase } from './database';
import { createContext } from './runtime';
import { runUntilSignalled, type Start } from './lifecycle';

/**
 * Without GATEWAY_REGISTRY_URL the simulated registry runs in this process (mediu sandbox), so
 * a fresh clone shows the whole flow, unless one already runs for the data dir (another
 * server, `npm run registry:sim`): then that one. A worker started on its own finds it through
 * the data dir (worker/registry/sim-discovery.ts).
 */
async function startRegistry(config: Config): Promise<{ url: string; sim?: SandboxRegistry }> {
  if (config.GATEWAY_REGISTRY_URL) return { url: config.GATEWAY_REGISTRY_URL };
  const users = parseSimUsers(config.GATEWAY_SIM_USERS);
  const sim = await sandboxRegistry({ dataDir: config.GATEWAY_DATA_DIR, port: config.GATEWAY_SIM_PORT, users, log: (m) => consola.warn(m) });
  if (sim.own) consola.info(`Simulated registry (sandbox) on ${sim.url}; logins: ${[...users.keys()].join(', ')} (GATEWAY_SIM_USERS)`);
  else consola.info(`Simulated registry (sandbox): the one already running for this data dir, on ${sim.url}`);
  return { url: sim.url, sim };
}

/**
 * Binds the HTTP port before anything else starts, so a port in use fails the start with one
 * line and leaves no simulator, worker or database behind. Until the app is ready, requests
 * get 503.
 */
async function bindPort(config: Config): Promise<{ server: Server; serve: (fetch: (req: Request) => Response | Promise<Response>) => void }> {
  let listener: ReturnType<typeof getRequestListener> | undefined;
  const server = createServer(serverOptions(config), (req, res) => {
    if (listener) return void listener(req, res);
    res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' }).end('{"status":"pornire"}');
  });
  limitServer(server, config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${config.HOST}:${config.PORT}`;
      if (error.code === 'EADDRINUSE') reject(new ConfigError(`Portul ${where} este deja folosit (alt gateway pornit?); alegeți altul cu PORT sau opriți procesul care îl ține.`));
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') reject(new ConfigError(`HOST=${config.HOST} nu este o adresă a acestei mașini.`));
      else if (error.code === 'EACCES') reject(new ConfigError(`Portul ${where} cere drepturi pe care procesul nu le are; alegeți PORT peste 1023.`));
      else reject(error);
    });
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  return { server, serve: (fetch) => (listener = getRequestListener(fetch)) };
}

const start: Start = async (signal, bound) => {
  const config = parseConfig(process.env);
  bound(config.GATEWAY_SHUTDOWN_S * 1000);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  // The worker child reads the same settings: refuse them here rather than let it crash-loop.
  if (config.GATEWAY_RUN_WORKER) assertWorkerSettings(config);
  const http = await bindPort(config);
  try {
    return await startBehind(config, http, signal);
  } catch (error) {
    // The port is free again at once, whatever else the start had got to.
    http.server.closeAllConnections();
    http.server.close();
    throw error;
  }
};

async function startBehind(config: Config, http: Awaited<ReturnType<typeof bindPort>>, signal: AbortSignal) {
  // The long steps of a first start (root relocation, initdb, the database's first start, the
  // migrations) end when `signal` aborts; what they started is stopped (src/lifecycle.ts).
  const database = await openDatabase(config, (m) => consola.info(m), { signal });
  let ctx: ReturnType<typeof createContext> | undefined;
  let registry: Awaited<ReturnType<typeof startRegistry>> | undefined;
  let secretKey: string;
  try {
    // After the database: a key is generated only for a database that holds nothing encrypted.
    secretKey = await openMasterKey(config, database.url, (m) => consola.warn(m));
    signal.throwIfAborted();
    ctx = createContext({ config, databaseUrl: database.url, secretKey, processName: 'server', poolSize: config.GATEWAY_DB_POOL });
    registry = await startRegistry(config);
    signal.throwIfAborted();
  } catch (error) {
    await registry?.sim?.close();
    await ctx?.close();
    await database.stop();
    throw error;
  }
  return startServing(config, http, { database, ctx, registry, secretKey });
}

async function startServing(
  config: Config,
  http: Awaited<ReturnType<typeof bindPort>>,
  started: { database: Awaited<ReturnType<typeof openDatabase>>; ctx: ReturnType<typeof createContext>; registry: Awaited<ReturnType<typeof startRegistry>>; secretKey: string },
) {
  const { server } = http;
  const { database, ctx, registry, secretKey } = started;
  let worker: SupervisedWorker | undefined;
  if (config.GATEWAY_RUN_WORKER) {
    // The child shares this database and key; it must not start an embedded database itself.
    const env = { ...process.env, DATABASE_URL: database.url, GATEWAY_SECRET_KEY: secretKey, GATEWAY_REGISTRY_URL: registry.url };
    worker = superviseWorker({ env, log: consola });
  }
  // The stagers stage the uploaded files; the server only queues them (docs/import.md).
  const stagerEnv = { ...process.env, DATABASE_URL: database.url, GATEWAY_SECRET_KEY: secretKey };
  const stagers = Array.from({ length: config.GATEWAY_STAGERS }, () => superviseWorker({ env: stagerEnv, log: consola, role: 'stager' }));
  const app = createApp(ctx);
  http.serve(app.fetch);
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  consola.success(`Gateway listening on http://${host}:${bound.port} (mediu: ${environmentName(config)})`);

  // Stop order: stop taking requests and, meanwhile, stop the stagers (a file being staged goes
  // back to the queue); once no request is left, let the worker finish or release its sends;
  // then the simulator it may still be talking to, then our pool; the database goes last. All of it within GATEWAY_SHUTDOWN_S:
  // what has not ended by then (a request still arriving) is cut, and the database stopped all
  // the same.
  return async () => {
    const graceful = async () => {
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      const childMs = (config.GATEWAY_WORKER_SHUTDOWN_S + 5) * 1000;
      await Promise.all([closed.then(() => worker?.stop(childMs)), ...stagers.map((stager) => stager.stop(childMs))]);
      await registry.sim?.close();
      await ctx.close();
    };
    if (!(await endsWithin(graceful(), config.GATEWAY_SHUTDOWN_S * 1000 - DATABASE_STOP_MS))) {
      consola.warn(`Not stopped within GATEWAY_SHUTDOWN_S (${config.GATEWAY_SHUTDOWN_S} s): open requests and connections are cut`);
      server.closeAllConnections();
      await Promise.all([worker, ...stagers].map((child) => child?.stop(1_000)));
      await ctx.sql.end({ timeout: 0 });
    }
    await database.stop();
  };
}

/** What the database's own stop is left of GATEWAY_SHUTDOWN_S (a fast shutdown: it ends its connections). */
const DATABASE_STOP_MS = 5_000;

/** Whether `work` ended (either way) within `ms`. */
async function endsWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(ms, 0));
  });
  const ended = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

runUntilSignalled(start);
