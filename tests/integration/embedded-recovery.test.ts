import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbedded } from '../../db/embedded';
import { ensureCredentials } from '../../db/embedded-roles';
import { ConfigError, parseConfig } from '../../src/config';
import { TEST_SECRET } from '../helpers/app';
import { createTestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/worker';

// Issue 10: start, stop and recover like a real service. The processes run for real.

const ROOT = join(import.meta.dirname, '..', '..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  return pids.filter((p) => {
    try {
      return Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
}

/** `src/main.ts` as `npm start` runs it, with its output collected. */
function startMain(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_SECRET_KEY: TEST_SECRET, GATEWAY_REQUIRE_API_KEY: 'false', GATEWAY_WORKER_SHUTDOWN_S: '2', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

describe('settings that cannot surprise', () => {
  it('an empty value is refused, naming the variable; HOST defaults to loopback', () => {
    expect(() => parseConfig({ PORT: '' })).toThrow(ConfigError);
    expect(() => parseConfig({ PORT: '' })).toThrow(/PORT: este gol/);
    expect(() => parseConfig({ GATEWAY_REGISTRY_URL: ' ' })).toThrow(/GATEWAY_REGISTRY_URL/);
    expect(parseConfig({}).HOST).toBe('127.0.0.1');
  });
});

describe('a failed start leaves nothing behind', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('a port in use: one line saying so, exit 1, and no simulator or worker was started', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const simPort = await freePort();
    try {
      const run = startMain({ PORT: String(port), GATEWAY_SIM_PORT: String(simPort), DATABASE_URL: database.url, GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-busy-')) });
      expect(await run.exited).toBe(1);
      expect(run.output()).toMatch(/deja folosit/);
      expect(run.output()).not.toMatch(/Simulated registry|Worker .* sending/);
      // The simulator's port was never taken.
      const probe = createServer();
      await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(simPort, '127.0.0.1', resolve));
      await new Promise((resolve) => probe.close(resolve));
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("an invalid worker setting stops the server's start with a message naming it", async () => {
    const run = startMain({ PORT: String(await freePort()), GATEWAY_SENDING_STALE_S: '3', DATABASE_URL: database.url, GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-bad-')) });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/GATEWAY_WORKER_HEARTBEAT_S .* GATEWAY_SENDING_STALE_S/);
  });

  it('the worker stops when the process that started it is killed outright', async () => {
    const port = await freePort();
    const run = startMain({ PORT: String(port), GATEWAY_SIM_PORT: String(await freePort()), DATABASE_URL: database.url, GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-kill-')) });
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200 || undefined, 30_000, `the worker to be alive:\n${run.output()}`);
      const [worker] = childrenOf(run.child.pid!);
      expect(worker).toBeDefined();
      run.child.kill('SIGKILL');
      await waitFor(() => !alive(worker!) || undefined, 15_000, 'the orphaned worker to stop');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('the embedded database recovers what an earlier run left', () => {
  it('a stale postmaster.pid whose number belongs to another process is removed, and the start goes on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-stale-'));
    await (await startEmbedded({ dataDir })).stop();
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(join(dataDir, 'pg', 'postmaster.pid'), `${other.pid}\n${join(dataDir, 'pg')}\n0\n5999\n`);
      const db = await startEmbedded({ dataDir });
      const sql = postgres(db.url, { max: 1 });
      expect((await sql`SELECT 1 AS ok`)[0]!.ok).toBe(1);
      await sql.end();
      await db.stop();
    } finally {
      other.kill();
    }
  }, 60_000);

  it('a PostgreSQL left running by a process killed outright is taken over, and stopped by its new owner', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-orphan-'));
    const script = `import { startEmbedded } from ${JSON.stringify(join(ROOT, 'db', 'embedded.ts'))}; await startEmbedded({ dataDir: ${JSON.stringify(dataDir)} }); console.log('ready'); setInterval(() => {}, 1000);`;
    const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => starter.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    starter.kill('SIGKILL');
    await new Promise((resolve) => starter.once('exit', resolve));
    expect(alive(postmaster)).toBe(true);

    const lines: string[] = [];
    const db = await startEmbedded({ dataDir, onLog: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/Took over the embedded PostgreSQL/);
    const sql = postgres(db.url, { max: 1 });
    expect((await sql`SELECT 1 AS ok`)[0]!.ok).toBe(1);
    await sql.end();
    await db.stop();
    expect(alive(postmaster)).toBe(false);
  }, 60_000);

  it('a first start interrupted during initdb is initialised again at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-interrupted-'));
    ensureCredentials(dataDir, true);
    mkdirSync(join(dataDir, 'pg'));
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    const db = await startEmbedded({ dataDir });
    const sql = postgres(db.url, { max: 1 });
    expect((await sql`SELECT current_database() AS d`)[0]!.d).toBe('gateway');
    await sql.end();
    await db.stop();
    expect(existsSync(join(dataDir, 'pg', 'gateway-initdb-done'))).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
