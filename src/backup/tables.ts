import type postgres from 'postgres';

type Query = postgres.Sql | postgres.TransactionSql;

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Bookkeeping of the migrations themselves: a restore writes its own as it migrates. */
const NOT_DATA = 'gateway_migrations';

/**
 * The product's tables in the connection's schema, each after the tables its foreign keys
 * point to: the order a backup writes them in and a restore loads them in, since a restore
 * (not a superuser) cannot switch the checks off.
 */
export async function tablesInLoadOrder(sql: Query): Promise<string[]> {
  const rows = await sql<{ name: string; refs: string[] }[]>`
    SELECT c.relname AS name,
           coalesce(array_agg(DISTINCT r.relname) FILTER (WHERE r.oid IS NOT NULL AND r.oid <> c.oid), '{}') AS refs
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_constraint f ON f.conrelid = c.oid AND f.contype = 'f'
    LEFT JOIN pg_class r ON r.oid = f.confrelid
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> ${NOT_DATA}
    GROUP BY c.relname
    ORDER BY c.relname`;
  const pending = new Map(rows.map((r) => [r.name, new Set(r.refs)]));
  const order: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending].filter(([, refs]) => [...refs].every((ref) => !pending.has(ref))).map(([name]) => name);
    if (ready.length === 0) throw new Error(`foreign keys form a cycle among ${[...pending.keys()].join(', ')}`);
    for (const name of ready) {
      order.push(name);
      pending.delete(name);
    }
  }
  return order;
}

/** A table's stored columns (generated ones are computed again on load), in their order. */
export async function storedColumns(sql: Query, table: string): Promise<string[]> {
  const rows = await sql<{ attname: string }[]>`
    SELECT attname FROM pg_attribute
    WHERE attrelid = to_regclass(format('%I.%I', current_schema(), ${table}::text))
      AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
    ORDER BY attnum`;
  return rows.map((r) => r.attname);
}

/** Tables of the connection's schema, with whether each holds a row: a restore's target must have none. */
export async function existingTables(sql: Query): Promise<Array<{ name: string; hasRows: boolean }>> {
  const names = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`;
  const found: Array<{ name: string; hasRows: boolean }> = [];
  for (const { name } of names) {
    const [row] = await sql.unsafe<{ any: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM ${quoteIdent(name)}) AS any`);
    found.push({ name, hasRows: row?.any === true });
  }
  return found;
}

/** Every sequence owned by a column, set past the column's largest value (or back to its start on an empty table). */
export async function resetSequences(sql: Query): Promise<void> {
  const owned = await sql<{ table: string; column: string; seq: string }[]>`
    SELECT c.relname AS table, a.attname AS column, pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS seq
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname = current_schema() AND c.relkind = 'r'
      AND pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) IS NOT NULL`;
  for (const { table, column, seq } of owned) {
    await sql.unsafe(
      `SELECT CASE WHEN m IS NULL THEN setval($1::regclass, 1, false) ELSE setval($1::regclass, m, true) END FROM (SELECT max(${quoteIdent(column)}) AS m FROM ${quoteIdent(table)}) AS t`,
      [seq],
    );
  }
}
