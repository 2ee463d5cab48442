import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SimFaults } from './sim-state';
import { alive } from '../../db/embedded';
import { startSimulator } from './simulator';

// The sandbox's processes find each other through the data dir: the simulated registry, in
// whichever process runs it (`npm start`, a server with GATEWAY_RUN_WORKER=false, `npm run
// registry:sim`), records its address there, so a worker or server started alone sends to
// it whatever port it took, and a second server on the data dir uses it instead of starting
// another: one simulator per data dir.

const FILE = 'registry-sim.json';

interface Recorded {
  url: string;
  pid: number;
}

export const simulatorFile = (dataDir: string) => join(resolve(dataDir), FILE);

function readRecorded(dataDir: string): Recorded | undefined {
  try {
    const recorded = JSON.parse(readFileSync(simulatorFile(dataDir), 'utf8')) as Partial<Recorded>;
    return typeof recorded.url === 'string' && typeof recorded.pid === 'number' ? { url: recorded.url, pid: recorded.pid } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a simulator answers at `url` (not some other program that took the port since). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/_sim/state`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { counters?: unknown };
    return res.ok && body.counters !== undefined;
  } catch {
    return false;
  }
}

/** The address of the simulator running for `dataDir`, if one runs: its process alive, and answering. */
export async function runningSimulator(dataDir: string): Promise<string | undefined> {
  const recorded = readRecorded(dataDir);
  if (!recorded || !alive(recorded.pid) || !(await answers(recorded.url))) return undefined;
  return recorded.url;
}

/** Records `url` as the data dir's simulator, run by this process (written whole: a reader never sees half of it). */
function record(dataDir: string, url: string): void {
  const path = simulatorFile(dataDir);
  mkdirSync(resolve(dataDir), { recursive: true });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify({ url, pid: process.pid } satisfies Recorded)}\n`);
  renameSync(partial, path);
}

function forget(dataDir: string, url: string): void {
  const recorded = readRecorded(dataDir);
  if (recorded?.pid === process.pid && recorded.url === url && existsSync(simulatorFile(dataDir))) rmSync(simulatorFile(dataDir), { force: true });
}

export interface SandboxRegistry {
  url: string;
  /** Whether this process runs it (and must close it). */
  own: boolean;
  close(): Promise<void>;
}

/**
 * The data dir's simulator: the one already running, or one started here on `port` (a free
 * port when it is taken) and recorded. Closing it removes the record.
 */
export async function sandboxRegistry(options: {
  dataDir: string;
  port: number;
  users: Map<string, string>;
  host?: string;
  faults?: Partial<SimFaults>;
  log: (line: string) => void;
}): Promise<SandboxRegistry> {
  const running = await runningSimulator(options.dataDir);
  if (running) return { url: running, own: false, close: async () => {} };
  const start = (port: number) => startSimulator({ port, host: options.host, users: options.users, faults: options.faults });
  const sim = await start(options.port).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE' || options.port === 0) throw error;
    // Another program holds the port: the address is recorded, so any free port serves.
    options.log(`GATEWAY_SIM_PORT ${options.port} is in use; the simulated registry takes a free port`);
    return start(0);
  });
  // Two processes starting at once on one data dir: the one that recorded first is kept.
  const raced = await runningSimulator(options.dataDir);
  if (raced) {
    await sim.close();
    return { url: raced, own: false, close: async () => {} };
  }
  record(options.dataDir, sim.url);
  return {
    url: sim.url,
    own: true,
    close: async () => {
      forget(options.dataDir, sim.url);
      await sim.close();
    },
  };
}
