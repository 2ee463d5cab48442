import { readFile } from 'node:fs/promises';
import { constants, getPriority, setPriority } from 'node:os';
import { sql } from 'drizzle-orm';
import type { Db, Sql } from './client';
import { runOnlyWhenIdle } from './run-only-when-idle';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether `sql` reaches a database on this machine (the embedded one, localhost, a Unix socket): its backends are then this machine's processes. */
export function isLocalDatabase(client: Sql): boolean {
  const hosts = (client.options as { host?: string[] }).host ?? [];
  return hosts.length > 0 && hosts.every((host) => LOCAL_HOSTS.has(host) || host.startsWith('/'));
}

/**
 * Sets the backend process serving `connection` to the lowest CPU priority (nice 19 and
 * SCHED_IDLE), when the database runs on this machine (`local`). For the connections of uploads (src/runtime.ts
 * `uploadSql`), which serve nothing else: a staging's COPY then takes the cores that other
 * requests leave, as its thread does (rest-thread-entry.ts). Best effort: a backend that is not
 * a `postgres` process of this machine (another PID namespace, a container), or one this user
 * may not renice, is left as it is. A nice value cannot be raised back without privileges,
 * which is why these connections are kept apart from the pool.
 */
export async function lowerBackendPriority(connection: Db, local: boolean): Promise<void> {
  if (!local || process.platform !== 'linux') return;
  try {
    const [{ pid }] = (await connection.execute(sql`SELECT pg_backend_pid() AS pid`)) as unknown as [{ pid: number }];
    if (getPriority(pid) === constants.priority.PRIORITY_LOW) return;
    if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() !== 'postgres') return;
    setPriority(pid, constants.priority.PRIORITY_LOW);
    runOnlyWhenIdle(pid);
  } catch {}
}
