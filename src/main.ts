import { serve } from '@hono/node-server';
import { consola } from 'consola';
import { createApp } from './app';
import { ConfigError, environmentName, parseConfig } from './config';
import { resolveSecretKey } from './crypto/secret-key';
import { openDatabase } from './database';
import { createContext } from './runtime';

async function main() {
  const config = parseConfig(process.env);
  consola.level = { debug: 4, info: 3, warn: 2, error: 1 }[config.GATEWAY_LOG_LEVEL];
  const secretKey = resolveSecretKey(config, (m) => consola.warn(m));
  const database = await openDatabase(config, (m) => consola.info(m));
  const ctx = createContext({ config, databaseUrl: database.url, secretKey, processName: 'server', poolSize: 20 });
  const app = createApp(ctx);

  const server = serve({ fetch: app.fetch, port: config.PORT }, (info) => {
    consola.success(`Gateway listening on http://localhost:${info.port} (mediu: ${environmentName(config)})`);
  });

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    consola.info(`${signal}: stopping`);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
    // The database goes last: everything above may still write to it.
    await database.stop();
    process.exit(0);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) consola.error(error.message);
  else consola.error(error);
  process.exit(1);
});
