// What of an error may be journalled: its kind, the database's SQLSTATE and the names of the
// constraint, table and column it concerns, and the stack's frames. A database error's own
// message is never kept: drizzle's "Failed query: … params: …" carries the values sent.

export interface ErrorDescription {
  name: string;
  message: string;
  sqlstate?: string;
  constraint?: string;
  table?: string;
  column?: string;
  stack: string[];
}

interface DatabaseFields {
  code?: unknown;
  constraint_name?: unknown;
  table_name?: unknown;
  column_name?: unknown;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The PostgreSQL error behind `error` (postgres.js's, possibly wrapped by drizzle as its cause). */
function databaseError(error: unknown): DatabaseFields | null {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as DatabaseFields).code;
    if (typeof code === 'string' && SQLSTATE.test(code)) return e as DatabaseFields;
  }
  return null;
}

/** The SQLSTATE of a database error (`40P01` a deadlock, `40001` a serialization failure), if it is one. */
export function sqlState(error: unknown): string | undefined {
  return databaseError(error)?.code as string | undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

export function describeError(error: unknown): ErrorDescription {
  const stack =
    error instanceof Error && error.stack
      ? error.stack
          .split('\n')
          .filter((line) => line.startsWith('    at '))
          .slice(0, 20)
      : [];
  const name = error instanceof Error ? error.name : typeof error;
  const db = databaseError(error);
  const failedQuery = error instanceof Error && error.message.startsWith('Failed query');
  if (db || failedQuery) {
    return {
      name,
      message: 'Interogarea bazei de date a eșuat.',
      sqlstate: text(db?.code),
      constraint: text(db?.constraint_name),
      table: text(db?.table_name),
      column: text(db?.column_name),
      stack,
    };
  }
  return { name, message: error instanceof Error ? error.message : String(error), stack };
}
