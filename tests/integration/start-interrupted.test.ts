import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded';
import { clusterDir } from '../../db/embedded-placement';
import { TEST_SECRET } from '../helpers/app';
import { alive } from '../helpers/worker';

// Issue 34: SIGINT (Ctrl-C, to the whole process group) or SIGTERM (to the server) at any
// moment of a first start (root relocation, initdb, the database's first start, the
// migrations) ends the process within GATEWAY_SHUTDOWN_S, frees the port and leaves no
// PostgreSQL running. A start was seen to hang for good after a SIGINT 2.8 s into it.

const ROOT = join(import.meta.dirname, '..', '..');
const SHUTDOWN_S = 12;
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A data dir for a first start: in a 0755 directory, or (as root) in a 0700 one, whose cluster the start relocates. */
function dataDir(relocated: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-interrupt-'));
  dirs.push(dir);
  if (!relocated) chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  mkdirSync(data);
  return data;
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** The postmaster running on the data dir's cluster, if any. */
function postmaster(data: string): number | undefined {
  const pidFile = join(clusterDir(data), 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return pid > 0 && alive(pid) ? pid : undefined;
}

/** A moment of the start: what it says it is doing (the process's very start: null), and how long after. */
type Point = { signal: 'SIGINT' | 'SIGTERM'; at: RegExp | null; after?: number; relocated?: boolean };

const INITDB = /First start: initialising the PostgreSQL cluster/;
const MIGRATIONS = /Embedded PostgreSQL in/;
/** Every moment of a first start: before anything, initdb (from its start to the database's first start), the migrations, and the relocation as root. */
const POINTS: Point[] = [
  { signal: 'SIGTERM', at: null, after: 0 },
  { signal: 'SIGINT', at: INITDB, after: 0 },
  { signal: 'SIGTERM', at: INITDB, after: 400 },
  { signal: 'SIGINT', at: INITDB, after: 1_200 },
  { signal: 'SIGTERM', at: INITDB, after: 2_500 },
  { signal: 'SIGINT', at: INITDB, after: 4_000 },
  { signal: 'SIGTERM', at: MIGRATIONS },
  { signal: 'SIGINT', at: MIGRATIONS, after: 100 },
  ...(process.getuid?.() === 0
    ? ([
        { signal: 'SIGINT', at: /PostgreSQL cluster is placed in/, relocated: true },
        { signal: 'SIGTERM', at: INITDB, after: 800, relocated: true },
      ] satisfies Point[])
    : []),
];

/** The server from source on a data dir, in its own process group as a terminal starts it; `said` resolves when its output matches. */
function launch(data: string, port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      GATEWAY_DATA_DIR: data,
      GATEWAY_SECRET_KEY: TEST_SECRET,
      GATEWAY_SIM_PORT: '0',
      GATEWAY_SHUTDOWN_S: String(SHUTDOWN_S),
      GATEWAY_WORKER_SHUTDOWN_S: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let out = '';
  const waiting: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const listen = (d: Buffer) => {
    out += d.toString();
    for (const w of waiting) if (w.pattern.test(out)) w.resolve();
  };
  child.stdout!.on('data', listen);
  child.stderr!.on('data', listen);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const said = (pattern: RegExp) => Promise.race([new Promise<void>((resolve) => waiting.push({ pattern, resolve })), exited]);
  return { child, out: () => out, exited, said };
}

/** The exit code, or 'hung' past GATEWAY_SHUTDOWN_S and two seconds. */
const exitOf = (run: ReturnType<typeof launch>) => Promise.race([run.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), (SHUTDOWN_S + 2) * 1000))]);

const interruptedInInitdb: string[] = [];

describe('a signal during a first start', () => {
  for (const point of POINTS) {
    const when = `${point.after ?? 0} ms after ${point.at ? `"${point.at.source}"` : 'the spawn'}`;
    it(`${point.signal} ${when}${point.relocated ? ' (cluster relocated, as root)' : ''}: exits 0 within GATEWAY_SHUTDOWN_S, the port free, no PostgreSQL left`, async () => {
      const data = dataDir(point.relocated ?? false);
      const port = await freePort();
      const run = launch(data, port);
      if (point.at) await run.said(point.at);
      await new Promise((resolve) => setTimeout(resolve, point.after ?? 0));
      expect(run.child.exitCode, `ended before the signal:\n${run.out()}`).toBeNull();
      const sentAt = Date.now();
      if (point.signal === 'SIGINT') process.kill(-run.child.pid!, 'SIGINT');
      else run.child.kill('SIGTERM');
      const code = await exitOf(run);
      const tookMs = Date.now() - sentAt;
      // Before Node has loaded the program, the signal's default action ends it: nothing was started.
      if (point.at === null && run.child.signalCode === point.signal) expect(run.out()).toBe('');
      else expect(code, `after ${tookMs} ms:\n${run.out()}`).toBe(0);
      expect(tookMs).toBeLessThan(SHUTDOWN_S * 1000);
      expect(await portIsFree(port)).toBe(true);
      // The PostgreSQL it started (if it got that far) ends with it: a fast shutdown takes a moment.
      const deadline = Date.now() + 5_000;
      while (postmaster(data) !== undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(postmaster(data), run.out()).toBeUndefined();
      if (point.relocated && existsSync(join(data, 'pg-location'))) rmSync(join(clusterDir(data), '..'), { recursive: true, force: true });
      else if (point.at === INITDB) interruptedInInitdb.push(data);
    }, 60_000);
  }

  it('the next start on a data dir interrupted during initdb starts whole, and stops on SIGTERM', async () => {
    const data = interruptedInInitdb.at(-1);
    expect(data).toBeDefined();
    const port = await freePort();
    const run = launch(data!, port);
    await run.said(/Gateway listening/);
    expect(run.out()).toMatch(/Gateway listening/);
    run.child.kill('SIGTERM');
    expect(await exitOf(run), run.out()).toBe(0);
  }, 90_000);
});
