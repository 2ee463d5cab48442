import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { sandboxRegistry, simulatorFile } from '../../worker/registry/sim-discovery';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/worker';

// Issue 34: the sandbox's processes find each other. The simulated registry records its
// address in the data dir; a worker, or a server with GATEWAY_RUN_WORKER=false, started alone
// reaches it whatever port it took, and does not start another.

const ROOT = join(import.meta.dirname, '..', '..');
const db = useTestDatabase('all');
const users = parseSimUsers('demo:demo');
const dirs: string[] = [];
const children: ChildProcess[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-sim-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A port some other program holds. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as { port: number }).port, server };
}

/** A product process from source, its output collected. */
function run(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: db.url, GATEWAY_SECRET_KEY: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

describe('one simulated registry per data dir, found by the processes started alone', () => {
  it('a second start on the data dir uses the running one; a record left by a dead process is replaced; closing removes the record', async () => {
    const dataDir = tempDir();
    const taken = await occupiedPort();
    try {
      const first = await sandboxRegistry({ dataDir, port: taken.port, users, log: () => {} });
      expect(first.own).toBe(true);
      expect(first.url).not.toContain(`:${taken.port}`);
      const second = await sandboxRegistry({ dataDir, port: taken.port, users, log: () => {} });
      expect(second).toMatchObject({ own: false, url: first.url });
      await second.close();
      expect((await fetch(`${first.url}/_sim/state`)).ok).toBe(true);
      await first.close();
      expect(existsSync(simulatorFile(dataDir))).toBe(false);

      // A server killed outright left its record: its process is gone, so a new simulator starts.
      writeFileSync(simulatorFile(dataDir), JSON.stringify({ url: first.url, pid: 2 ** 22 + 1 }));
      const third = await sandboxRegistry({ dataDir, port: 0, users, log: () => {} });
      expect(third.own).toBe(true);
      expect(JSON.parse(readFileSync(simulatorFile(dataDir), 'utf8'))).toEqual({ url: third.url, pid: process.pid });
      await third.close();
    } finally {
      taken.server.close();
    }
  });

  it('npm run worker alone sends to the simulator of its data dir, not to GATEWAY_SIM_PORT; a server with GATEWAY_RUN_WORKER=false starts none of its own', async () => {
    const dataDir = tempDir();
    const taken = await occupiedPort();
    const sim = await sandboxRegistry({ dataDir, port: taken.port, users, log: () => {} });
    try {
      const worker = run('worker/main.ts', { GATEWAY_DATA_DIR: dataDir, GATEWAY_SIM_PORT: String(taken.port), GATEWAY_WORKER_SHUTDOWN_S: '2' });
      const sending = await waitFor(() => /sending to (\S+)/.exec(worker.out())?.[1], 60_000, `the worker to start:\n${worker.out()}`);
      expect(sending).toBe(sim.url);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);

      const port = await freePort();
      const server = run('src/main.ts', {
        PORT: String(port),
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_SIM_PORT: String(taken.port),
        GATEWAY_RUN_WORKER: 'false',
        GATEWAY_WORKER_SHUTDOWN_S: '2',
      });
      await waitFor(() => /Gateway listening/.exec(server.out()) ?? undefined, 60_000, `the server to start:\n${server.out()}`);
      expect(server.out()).toContain(`the one already running for this data dir, on ${sim.url}`);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      // The server used it and left it: still running, still recorded.
      expect(JSON.parse(readFileSync(simulatorFile(dataDir), 'utf8')).url).toBe(sim.url);
    } finally {
      await sim.close();
      taken.server.close();
    }
  });
});
