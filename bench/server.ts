import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../db/embedded';

const ROOT = join(import.meta.dirname, '..');

/**
 * The server's script: its TypeScript sources through tsx, or `built` (BENCH_BUILT=1 by default)
 * the build `npm start` runs, built here first.
 */
function serverScript(built: boolean): string[] {
  if (!built) return ['--import', 'tsx', 'src/main.ts'];
  if (spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  return ['dist/main.js'];
}

/**
 * The product's server (`src/main.ts`) as a child process on `databaseUrl`, without a worker (unless `worker`)
 * and with the stager it runs beside it (a child of its own), answering /healthz. `nodeArgs` go
 * before the script (e.g. --cpu-prof); without them, BENCH_NODE_ARGS's. Benchmarks measure
 * it over real HTTP, as a client would.
 */
export async function startServerProcess(options: {
  databaseUrl: string;
  dataDir: string;
  nodeArgs?: string[];
  built?: boolean;
  worker?: boolean;
  env?: Record<string, string>;
}): Promise<{
  port: number;
  child: ChildProcess;
  stop: () => Promise<void>;
}> {
  const port = await freePort();
  const nodeArgs = options.nodeArgs ?? process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...serverScript(options.built ?? Boolean(process.env.BENCH_BUILT))], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      GATEWAY_SECRET_KEY: randomBytes(32).toString('base64'),
      GATEWAY_RUN_WORKER: options.worker ? 'true' : 'false',
      GATEWAY_SIM_PORT: '0',
      GATEWAY_DATA_DIR: options.dataDir,
      GATEWAY_LOG_LEVEL: 'warn',
      // The benchmarks measure throughput: no per-key request limit, unless BENCH_KEY_LIMIT sets one (its cost measured).
      GATEWAY_KEY_REQUESTS_PER_MIN: process.env.BENCH_KEY_LIMIT ?? '0',
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  for (let i = 0; ; i++) {
    // Up when it answers: without a worker /healthz says 503 (degraded), which is an answer;
    // a 503 `pornire` is main.ts's placeholder while the app is still being made.
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        async (r) => r.status === 200 || (r.status === 503 && !(await r.text()).includes('pornire')),
        () => false,
      )
    )
      break;
    // A minute: a loaded machine (the build, the migrations, the stager child) starts it slowly.
    if (i > 600) {
      await stop();
      throw new Error('the server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, child, stop };
}
