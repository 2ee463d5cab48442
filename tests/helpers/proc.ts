import { readFileSync } from 'node:fs';

/**
 * The fields of a Linux task's stat file (`/proc/<pid>/stat`, `/proc/self/task/<tid>/stat`)
 * after its command, which is in parentheses and may hold spaces: [0] is field 3 (the state),
 * so field n of proc(5) is [n − 3].
 */
export function statFields(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return text.slice(text.lastIndexOf(') ') + 2).split(' ');
}

/** A task's scheduling policy, field 41 (0 SCHED_OTHER, 5 SCHED_IDLE). */
export function schedulingPolicy(path: string): number {
  return Number(statFields(path)[41 - 3]);
}
