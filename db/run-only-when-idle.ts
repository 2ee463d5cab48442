import { spawn, type ChildProcess } from 'node:child_process';

// One shell, started once, runs `chrt` for every id it is given on its standard input. Spawning
// `chrt` from the server each time forked the whole server: with ~400 MB resident, each fork held
// the forking thread ~25 ms, and made every page any thread wrote afterwards fault once
// (copy-on-write), a 400 MB heap's worth of writes going from 4 to 70 ms.
let helper: ChildProcess | null = null;

function idleHelper(): ChildProcess | null {
  if (process.platform !== 'linux') return null;
  if (!helper) {
    helper = spawn('sh', ['-c', 'while read -r id; do chrt --idle --pid 0 "$id"; done'], { stdio: ['pipe', 'ignore', 'ignore'] });
    helper.on('error', () => {});
    helper.stdin!.on('error', () => {});
    // It ends with this process (its input closes); it keeps nothing running.
    helper.unref();
  }
  return helper;
}

/** Starts the helper while this process is small (the server at its start): a fork then costs little. */
export function prepareIdleScheduling(): void {
  idleHelper();
}

/**
 * Puts a thread or process of this machine (`id`, a pid or a thread's id) under SCHED_IDLE:
 * it runs when no other task wants a core, and a request's task that wakes takes the core from
 * it at once. At nice 19 alone a staging's threads and its COPY still held a core for several
 * ms at a time while another account's call waited (bench:uploads, alternated: that call's p95
 * during the storm 8.9–9.7 ms with SCHED_IDLE, 10.0–10.7 ms without). Node has no call for a
 * scheduling policy, so util-linux's `chrt` (in every Debian) sets it, through the helper above;
 * best effort: where it is missing or refused, the nice value stays. From the main thread only
 * (a thread sends its id there: rest-thread.ts).
 */
export function runOnlyWhenIdle(id: number): void {
  idleHelper()?.stdin?.write(`${id}\n`);
}
