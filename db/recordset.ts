import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** A column of a `jsonb_to_recordset` record: a table's own column (its SQL type), or a type for a value of the statement only. */
export type RecordsetType = PgColumn | 'bigint' | 'integer' | 'text' | 'jsonb' | 'boolean' | 'float8' | 'timestamptz';

/** One entry for every field of T, no more: a field added to T and not here is a type error. */
export type RecordsetSpec<T> = { readonly [K in keyof T]-?: RecordsetType };

/**
 * A statement that writes many rows at once passes them as one JSON text read back by
 * `jsonb_to_recordset(...) AS x(<columns>)`. The column list is built here from a typed spec,
 * keyed by the same field names the rows are built with, so the typecheck sees every column
 * (a hand-written list is a second spelling it cannot check).
 */
export function recordset<T>(spec: RecordsetSpec<T>) {
  const keys = Object.keys(spec) as Array<keyof T & string>;
  const definitions = keys
    .map((key) => {
      const type: RecordsetType = spec[key];
      return `"${key}" ${typeof type === 'string' ? type : type.getSQLType()}`;
    })
    .join(', ');
  const columns = sql.raw(definitions);
  const name = (alias: string, key: keyof T & string) => `${alias}."${key}"`;
  return {
    keys,
    /** The column definitions (`"field" type, …`), for a statement kept as text (postgres.js `unsafe`). */
    definitions,
    /** `jsonb_to_recordset($rows) AS <alias>(<columns>)`; the rows are stringified once, here. */
    from: (rows: readonly T[], alias: string): SQL => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS ${sql.raw(alias)}(${columns})`,
    /** A field of the record, as `<alias>."<field>"`. */
    name,
    field: (alias: string, key: keyof T & string): SQL => sql.raw(name(alias, key)),
  };
}
