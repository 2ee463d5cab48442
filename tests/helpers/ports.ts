import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A port that a test hands to another process (a built server, PostgreSQL) to bind later, or to
// bind again after a restart. A port the kernel chose for us (listen on 0, then close) is in the
// ephemeral range, so any outgoing connection of the machine may take it before the other process
// binds it: `could not bind IPv4 address "127.0.0.1": Address already in use`. These ports come
// from below that range, where the kernel never picks one by itself, and each is reserved by a
// file naming this process, so no two test processes (of this run or a parallel one) get the same.

const DIR = join(tmpdir(), 'gateway-test-ports');
const mine = new Set<number>();

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // Not Linux: the IANA range.
  }
  return [49152, 65535];
}

/** The range reservations come from: below the ephemeral range (or above it, where it starts low). */
export function reservableRange(): [number, number] {
  const [low, high] = ephemeralRange();
  return low >= 12_000 ? [10_000, low - 1] : [high + 1, 65_535];
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the reservation file of `port`, or takes over one whose process has ended. */
function claim(port: number): boolean {
  const file = join(DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (owner > 0 && alive(owner)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A loopback port reserved for this test process until it exits: free now, outside the range the
 * kernel hands out by itself, and given to no other test process meanwhile.
 */
export async function reservePort(): Promise<number> {
  mkdirSync(DIR, { recursive: true, mode: 0o1777 });
  const [low, high] = reservableRange();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (mine.has(port) || !claim(port)) continue;
    if (await bindable(port)) {
      mine.add(port);
      return port;
    }
    rmSync(join(DIR, String(port)), { force: true });
  }
  throw new Error(`no free port to reserve in ${low}–${high}`);
}

process.once('exit', () => {
  for (const port of mine) rmSync(join(DIR, String(port)), { force: true });
});
