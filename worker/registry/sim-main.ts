// `npm run registry:sim -- --port 4010`: the simulated registry on its own.
import { parseArgs } from 'node:util';
import { consola } from 'consola';
import { ConfigError, parseConfig } from '../../src/config';
import { parseSimUsers } from './sim-state';
import { runningSimulator, sandboxRegistry } from './sim-discovery';

const USAGE = `Usage:
  npm run registry:sim -- [--port <port>] [--host <host>] [--latency <ms>]
    --port     default GATEWAY_SIM_PORT (4010; a free port when it is taken)
    --host     default 127.0.0.1
    --latency  delay every answer by this many milliseconds
  Logins come from GATEWAY_SIM_USERS (default demo:demo); faults are set on <url>/_sim/*.
  One per data dir (GATEWAY_DATA_DIR): its address is recorded there, where a worker or server
  started alone finds it.`;

async function main() {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, host: { type: 'string' }, latency: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = parseConfig(process.env);
  const port = values.port === undefined ? config.GATEWAY_SIM_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port: not a port number: ${values.port}`);
  const users = parseSimUsers(config.GATEWAY_SIM_USERS);
  const running = await runningSimulator(config.GATEWAY_DATA_DIR);
  if (running) throw new ConfigError(`A simulated registry already runs for GATEWAY_DATA_DIR ${config.GATEWAY_DATA_DIR}, on ${running}: one per data dir.`);
  const faults = values.latency ? { latencyMs: Number(values.latency) } : undefined;
  const sim = await sandboxRegistry({ dataDir: config.GATEWAY_DATA_DIR, port, host: values.host, users, faults, log: (m) => consola.warn(m) });
  consola.success(`Simulated registry on ${sim.url} (users: ${[...users.keys()].join(', ')}); faults on ${sim.url}/_sim/*`);

  const stop = async () => {
    await sim.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  consola.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
