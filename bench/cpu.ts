import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from '../tests/helpers/proc';

// CPU seconds (user + system) of this machine's processes, read from /proc: where a layout's
// time goes, process by process, and PostgreSQL's backends together. Linux only; elsewhere 0.

const TICKS_PER_S = 100; // USER_HZ, 100 on every Linux this runs on

/** CPU seconds used so far by process `pid` (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = statFields(`/proc/${pid}/stat`);
    // utime and stime: fields 14 and 15.
    return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by every `postgres` process (the postmaster, its backends, its helpers). */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const seconds of postgresCpuByPid().values()) total += seconds;
  return total;
}

/** The same, process by process: a backend that ends between two readings takes its seconds with it, so deltas are taken per process. */
export function postgresCpuByPid(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // a process that ended meanwhile
    }
  }
  return byPid;
}

/** CPU seconds the whole machine was busy so far, every core together (/proc/stat less idle and iowait). */
export function machineBusySeconds(): number {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    // user nice system idle iowait irq softirq steal
    return (ticks.reduce((sum, t) => sum + t, 0) - ticks[3]! - ticks[4]!) / TICKS_PER_S;
  } catch {
    return 0;
  }
}
