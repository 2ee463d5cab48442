import { spawn } from 'node:child_process';

/**
 * Puts a thread or process of this machine (`id`, a pid or a thread's id) under SCHED_IDLE:
 * it runs when no other task wants a core, and a request's task that wakes takes the core from
 * it at once. At nice 19 alone a staging's threads and its COPY still held a core for several
 * ms at a time while another account's call waited (bench:uploads, alternated: that call's p95
 * during the storm 8.9–9.7 ms with SCHED_IDLE, 10.0–10.7 ms without). Node has no call for a
 * scheduling policy, so util-linux's `chrt` (in every Debian) sets it; best effort, in the
 * background: where it is missing or refused, the nice value stays.
 */
export function runOnlyWhenIdle(id: number): void {
  if (process.platform !== 'linux') return;
  spawn('chrt', ['--idle', '--pid', '0', String(id)], { stdio: 'ignore' }).on('error', () => {});
}
