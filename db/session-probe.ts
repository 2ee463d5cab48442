import type { Sql } from './client';

const PID = 'SELECT pg_backend_pid() AS pid';

/**
 * Whether the connections of `sql` keep their session from one statement to the next. They do
 * on PostgreSQL itself and behind a pooler in session mode; behind one in transaction mode
 * (PgBouncer's pool_mode=transaction) each transaction may run on another server connection,
 * which breaks what a session holds: the LISTEN of the worker and the stagers. Two sessions open at once never share a backend pid, and a
 * session keeps its own: so `other`, in a transaction (which pins its server connection),
 * seeing the pid `one` just had, or `one` seeing another pid afterwards, is a pooler handing
 * server connections around (a pooler reuses the connection last freed, or the one idle
 * longest: either way one of the two shows). Unprepared statements, which any pooler passes.
 */
export async function keepsSessions(sql: Pick<Sql, 'reserve'>, rounds = 3): Promise<boolean> {
  const one = await sql.reserve();
  const other = await sql.reserve().catch((error: unknown) => {
    one.release();
    throw error;
  });
  const pid = async (connection: typeof one) => ((await connection.unsafe<{ pid: number }[]>(PID))[0]?.pid ?? 0) as number;
  try {
    for (let round = 0; round < rounds; round++) {
      const first = await pid(one);
      await other.unsafe('BEGIN');
      const pinned = await pid(other);
      const again = await pid(one);
      await other.unsafe('COMMIT');
      if (pinned === first || again !== first) return false;
    }
    return true;
  } finally {
    one.release();
    other.release();
  }
}
