import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePort } from '../helpers/ports';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { alive, waitFor } from '../helpers/worker';

// The product's processes for real: `npm start` (build, then `exec node dist/main.js`), signalled
// as a user (Ctrl-C: SIGINT to the process group) or a service manager (SIGTERM to the process
// it started) would, and started twice on one port.

const ROOT = join(import.meta.dirname, '..', '..');
const db = useTestDatabase('each');
const dirs: string[] = [];

beforeAll(() => {
  expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every process of a process group still running (ps answers nothing once all are gone). */
const groupMembers = (pgid: number) =>
  spawnSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-life-'));
  chmodSync(dir, 0o755); // the embedded PostgreSQL runs as another OS user when we are root
  dirs.push(dir);
  return dir;
}

interface Started {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

/** Starts a command in its own process group, as a terminal would. */
function launch(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', GATEWAY_REQUIRE_API_KEY: 'false', GATEWAY_WORKER_SHUTDOWN_S: '2', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

const healthy = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200 || undefined;

async function workerPid(): Promise<number> {
  const rows = await db.sql<{ worker_id: string }[]>`SELECT worker_id FROM worker_state ORDER BY heartbeat_at DESC LIMIT 1`;
  return Number(/-(\d+)-[0-9a-f]+$/.exec(rows[0]!.worker_id)![1]);
}

describe('npm start stops on a signal, everything, once', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} (${signal === 'SIGTERM' ? 'to the npm process' : 'to the process group, as Ctrl-C'}) stops npm, server, worker and the embedded PostgreSQL, exit 0, and says so`, async () => {
      const dataDir = join(tempDir(), 'data');
      const [port, simPort] = [await reservePort(), await reservePort()];
      const run = launch('npm', ['start'], { PORT: String(port), GATEWAY_SIM_PORT: String(simPort), GATEWAY_DATA_DIR: dataDir });
      try {
        await waitFor(() => healthy(port), 90_000, `the server to be healthy:\n${run.out()}`);
        const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
        expect(alive(postmaster)).toBe(true);
        expect(groupMembers(run.child.pid!).length).toBeGreaterThanOrEqual(3); // npm, node server, worker
        const sentAt = Date.now();
        if (signal === 'SIGTERM') run.child.kill('SIGTERM');
        else process.kill(-run.child.pid!, 'SIGINT');
        expect(await run.exited).toBe(0);
        await waitFor(() => (groupMembers(run.child.pid!).length === 0 && !alive(postmaster)) || undefined, 10_000, `every process to end:\n${run.out()}`);
        expect(Date.now() - sentAt).toBeLessThan(20_000);
        // node writes to the same pipe as npm: its last line may be read after npm's exit.
        await waitFor(() => run.out().includes('Gateway stopped') || undefined, 5_000, `"Gateway stopped":\n${run.out()}`);
        expect(run.out().match(/Gateway stopped/g)).toHaveLength(1);
      } finally {
        if (run.child.exitCode === null) process.kill(-run.child.pid!, 'SIGKILL');
      }
    }, 120_000);
  }
});

describe('a failed start leaves nothing behind', () => {
  it('a second start on a port in use exits non-zero with one clear line, starts nothing and creates nothing', async () => {
    const [port, simPort, simPort2] = [await reservePort(), await reservePort(), await reservePort()];
    const first = launch(process.execPath, ['dist/main.js'], {
      PORT: String(port),
      GATEWAY_SIM_PORT: String(simPort),
      DATABASE_URL: db.url,
      GATEWAY_SECRET_KEY: TEST_SECRET,
      GATEWAY_DATA_DIR: join(tempDir(), 'a'),
    });
    try {
      await waitFor(() => healthy(port), 60_000, `the first server:\n${first.out()}`);
      const dataDir = join(tempDir(), 'b');
      const second = launch('npm', ['start'], { PORT: String(port), GATEWAY_SIM_PORT: String(simPort2), GATEWAY_DATA_DIR: dataDir });
      expect(await second.exited).not.toBe(0);
      expect(second.out()).toContain(`Portul 127.0.0.1:${port} este deja folosit`);
      expect(second.out()).not.toMatch(/EADDRINUSE|at .*\.js:\d+/);
      // esbuild's service process (the build before the start) ends a moment after npm.
      await waitFor(() => groupMembers(second.child.pid!).length === 0 || undefined, 5_000, 'the second start to leave no process');
      expect(existsSync(dataDir)).toBe(false); // no database, no key
      // Nor did it start a simulator.
      expect(await fetch(`http://127.0.0.1:${simPort2}/_sim/state`).catch(() => 'refused')).toBe('refused');
    } finally {
      process.kill(-first.child.pid!, 'SIGKILL');
    }
  }, 90_000);

  it('a worker whose parent is killed with SIGKILL exits within a few seconds', async () => {
    const [port, simPort] = [await reservePort(), await reservePort()];
    const run = launch(process.execPath, ['dist/main.js'], {
      PORT: String(port),
      GATEWAY_SIM_PORT: String(simPort),
      DATABASE_URL: db.url,
      GATEWAY_SECRET_KEY: TEST_SECRET,
      GATEWAY_DATA_DIR: join(tempDir(), 'a'),
    });
    try {
      await waitFor(() => healthy(port), 60_000, `the server and its worker:\n${run.out()}`);
      const worker = await workerPid();
      expect(alive(worker)).toBe(true);
      run.child.kill('SIGKILL');
      await run.exited;
      await waitFor(() => !alive(worker) || undefined, 8_000, `the orphaned worker ${worker} to exit:\n${run.out()}`);
      expect(run.out()).toContain('parent process gone: stopping');
    } finally {
      if (groupMembers(run.child.pid!).length) process.kill(-run.child.pid!, 'SIGKILL');
    }
  }, 90_000);

  it("refuses the worker's invalid settings before anything starts, naming the setting", async () => {
    const port = await reservePort();
    const dataDir = join(tempDir(), 'a');
    const run = launch(process.execPath, ['dist/main.js'], { PORT: String(port), GATEWAY_SENDING_STALE_S: '3', GATEWAY_DATA_DIR: dataDir });
    expect(await run.exited).toBe(1);
    expect(run.out()).toContain('GATEWAY_SENDING_STALE_S');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses an empty setting (PORT=) instead of listening on a random port', async () => {
    const run = launch(process.execPath, ['dist/main.js'], { PORT: '', GATEWAY_DATA_DIR: join(tempDir(), 'a') });
    expect(await run.exited).toBe(1);
    expect(run.out()).toMatch(/PORT: este setat gol/);
  });

  it('prints the address it actually bound (HOST, default 127.0.0.1)', async () => {
    const [port, simPort] = [await reservePort(), await reservePort()];
    const run = launch(process.execPath, ['dist/main.js'], {
      PORT: String(port),
      GATEWAY_SIM_PORT: String(simPort),
      DATABASE_URL: db.url,
      GATEWAY_SECRET_KEY: TEST_SECRET,
      GATEWAY_RUN_WORKER: 'false',
    });
    try {
      await waitFor(() => run.out().includes('Gateway listening') || undefined, 60_000, `the server:\n${run.out()}`);
      expect(run.out()).toContain(`Gateway listening on http://127.0.0.1:${port}`);
      // No worker anywhere: a monitor must see it.
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'degradat', worker_alive: false });
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      if (run.child.exitCode === null) process.kill(-run.child.pid!, 'SIGKILL');
    }
  }, 90_000);
});

describe('command-line tools', () => {
  it('--help prints usage to stdout and exits 0 on every command', () => {
    for (const script of ['accounts', 'keys', 'registry:sim', 'worker']) {
      const r = spawnSync('npm', ['run', '--silent', script, '--', '--help'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root' } });
      expect(r.status, `${script}: ${r.stderr}`).toBe(0);
      expect(r.stdout, script).toMatch(/^Usage:/);
    }
  }, 60_000);

  it('refuse, naming the data dir and the setting, when no database exists where they look; create nothing', () => {
    const dataDir = join(tempDir(), 'nowhere');
    for (const script of ['accounts', 'keys']) {
      const r = spawnSync('npm', ['run', '--silent', script, '--', 'list'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', GATEWAY_DATA_DIR: dataDir },
      });
      expect(r.status, script).not.toBe(0);
      expect(r.stderr).toContain(join(dataDir, 'pg'));
      expect(r.stderr).toContain('GATEWAY_DATA_DIR');
      expect(r.stderr).toContain('DATABASE_URL');
      expect(existsSync(dataDir)).toBe(false);
    }
  }, 60_000);
});
