import { readdirSync, readFileSync } from 'node:fs';

// CPU seconds (user + system) of this machine's processes, read from /proc: where a layout's
// time goes, process by process, and PostgreSQL's backends together. Linux only; elsewhere 0.

const TICKS_PER_S = 100; // USER_HZ, 100 on every Linux this runs on

/** CPU seconds used so far by process `pid` (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime: fields 14 and 15 of the stat line, 11 and 12 after the command.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by every `postgres` process (the postmaster, its backends, its helpers). */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(entry));
    } catch {
      // a process that ended meanwhile
    }
  }
  return total;
}
