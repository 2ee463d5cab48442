import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { clusterDir, packageNativeDir, placeBinaries, placeCluster, postgresOsUser, RELOCATION_DIR } from './embedded-placement';
import { ensureCredentials, ensureRoles, readCredentials, roleUrl, writeHba } from './embedded-roles';
import { initCluster, LOG_FLAGS, startServer, untilAborted } from './embedded-server';

export interface EmbeddedDb {
  /** The product's connection: the app role (not a superuser), its own database. */
  url: string;
  /** A superuser on the `postgres` database, for set-up and for the tests' own databases. */
  adminUrl: string;
  /** Where the cluster lives: `<dataDir>/pg`, or where it was placed for the postgres OS user to reach. */
  pgDir: string;
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

const OWNER_FILE = 'gateway-owner.pid';
/** Beside OWNER_FILE while its owner is a command-line tool, which stops the database when it ends. */
const TOOL_OWNER_FILE = 'gateway-owner.tool';
const INITIALISED_FILE = 'gateway-initdb-done';
/** How often a process waiting for the tool that holds the database looks whether it has ended. */
const TOOL_POLL_MS = 200;

/** Records this process as the owner of the data dir's PostgreSQL, and whether it is a tool. */
function recordOwner(dataDir: string, tool: boolean): void {
  writeFileSync(join(dataDir, OWNER_FILE), String(process.pid));
  if (tool) writeFileSync(join(dataDir, TOOL_OWNER_FILE), String(process.pid));
  else rmSync(join(dataDir, TOOL_OWNER_FILE), { force: true });
}

/** The live tool (another process) that started the data dir's PostgreSQL and will stop it, if one did. */
function toolOwner(dataDir: string): number | undefined {
  const read = (name: string) => {
    try {
      return Number(readFileSync(join(dataDir, name), 'utf8'));
    } catch {
      return 0;
    }
  };
  const tool = read(TOOL_OWNER_FILE);
  return tool > 0 && tool === read(OWNER_FILE) && tool !== process.pid && alive(tool) ? tool : undefined;
}

/**
 * A process that finds the database started by a tool (a backup run while no server ran) waits
 * for the tool to end: the tool stops its database when done, which would leave a server, a
 * worker or another tool attached to it without one. Tools are short; the wait is logged.
 */
async function waitForToolOwner(dataDir: string, log: (line: string) => void, signal: AbortSignal | undefined): Promise<void> {
  const tool = toolOwner(dataDir);
  if (tool === undefined) return;
  log(`The embedded PostgreSQL was started by a command (pid ${tool}, npm run backup or another tool), which stops it when it ends: waiting for it`);
  while (toolOwner(dataDir) !== undefined) {
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, TOOL_POLL_MS));
  }
  log(`The command (pid ${tool}) ended`);
}

/** Whether process `pid` exists (one of another user counts). */
export const alive = (pid: number) => {
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

/** Loopback only, SCRAM for new passwords, its own log kept (embedded-server.ts LOG_FLAGS). */
const SERVER_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'password_encryption=scram-sha-256', ...LOG_FLAGS];

/**
 * Starts (or attaches to) the embedded PostgreSQL of `dataDir` (kept in `<dataDir>/pg`, or
 * where db/embedded-placement.ts placed it), so that the server, the worker and the CLI tools
 * share one database with no set-up.
 */
export async function startEmbedded(options: {
  dataDir: string;
  database?: string;
  port?: number;
  /** The gateway's own notes: where things were placed, what was recovered. */
  onLog?: (line: string) => void;
  /** Where what the postgres OS user cannot reach is placed (tests give their own). */
  relocationDir?: string;
  /** The package's binaries (tests give a copy of them out of reach). */
  nativeDir?: string;
  /**
   * Aborted when the process is asked to stop during its start: initdb or the starting server
   * is ended, a server already started is stopped, and the start rejects with the reason.
   */
  signal?: AbortSignal;
  /**
   * A command-line tool (backup, restore, ...): a database it starts, it stops when it ends, so a
   * process starting meanwhile waits for it rather than attach to it.
   */
  tool?: boolean;
}): Promise<EmbeddedDb> {
  const { signal } = options;
  const tool = options.tool === true;
  // Absolute: PostgreSQL runs elsewhere than in our working directory, as another user.
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? 'gateway';
  const log = options.onLog ?? (() => {});
  await waitForToolOwner(dataDir, log, signal);
  const recorded = clusterDir(dataDir);
  const running = livePostmaster(recorded, log);
  const known = readCredentials(dataDir);
  if (running && known) {
    const ownerFile = join(dataDir, OWNER_FILE);
    const owner = existsSync(ownerFile) ? Number(readFileSync(ownerFile, 'utf8')) : 0;
    const attached = { url: roleUrl(known.app, running.port, database), adminUrl: roleUrl(known.admin, running.port, 'postgres'), pgDir: recorded };
    // Its starter is alive (the server, while a tool or the worker attaches): use it, leave it.
    if (owner > 0 && owner !== process.pid && alive(owner)) return { ...attached, stop: async () => {} };
    // Its starter is gone (killed outright): this process takes it over and stops it when done.
    recordOwner(dataDir, tool);
    log(`Took over the embedded PostgreSQL (pid ${running.pid}) left running by process ${owner || 'unknown'}`);
    await ensureRoles(known, running.port, database);
    let adopted = true;
    return {
      ...attached,
      stop: async () => {
        if (!adopted) return;
        adopted = false;
        await stopPostmaster(running.pid);
        if (tool) rmSync(join(dataDir, TOOL_OWNER_FILE), { force: true });
      },
    };
  }

  mkdirSync(dataDir, { recursive: true });
  // As root the server runs as the postgres OS user, which must reach the cluster in the dir.
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
  const runAs = postgresOsUser();
  const relocationDir = options.relocationDir ?? RELOCATION_DIR;
  const pgDir = placeCluster(dataDir, runAs, relocationDir, log);
  signal?.throwIfAborted();
  const binDir = placeBinaries(options.nativeDir ?? (await packageNativeDir()), runAs, relocationDir, log);
  const port = options.port ?? (await freePort());
  signal?.throwIfAborted();
  // An initdb that did not finish (interrupted first start) left a directory nothing can use:
  // it holds no data yet, so it is made again. Data dirs of earlier builds have no marker but
  // no credentials file either, and are complete.
  const interrupted = existsSync(pgDir) && readCredentials(dataDir) !== null && !existsSync(join(pgDir, INITIALISED_FILE));
  if (interrupted) {
    log('The first start was interrupted during initdb; initialising again');
    rmSync(pgDir, { recursive: true, force: true });
  }
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const credentials = ensureCredentials(dataDir, fresh);
  const cluster = { binDir, pgDir, runAs };
  if (fresh) log(`First start: initialising the PostgreSQL cluster in ${pgDir}`);
  if (fresh) await initCluster({ ...cluster, admin: credentials.admin, auth: 'scram-sha-256', signal });
  // From here the cluster is whole (new, or an earlier build's, which has no marker yet).
  writeFileSync(join(pgDir, INITIALISED_FILE), '');
  writeHba(pgDir);
  const server = await startServer({ ...cluster, port, flags: SERVER_FLAGS, signal });
  recordOwner(dataDir, tool);
  try {
    // Resumable: roles and database are brought to what they must be whatever an earlier,
    // interrupted start left (initdb done, database not yet created, ...).
    // Raced with the stop: a server that a signal ends just as this connects to it (it was ready
    // 50 ms after its start) can leave the connection waiting past GATEWAY_SHUTDOWN_S.
    await untilAborted(ensureRoles(credentials, port, database), signal);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const stop = async () => {
    await server.stop();
    // Stopped: a service that waited for this tool starts the database itself.
    if (tool) rmSync(join(dataDir, TOOL_OWNER_FILE), { force: true });
  };
  return { url: roleUrl(credentials.app, port, database), adminUrl: roleUrl(credentials.admin, port, 'postgres'), pgDir, stop };
}
