import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/**
 * The spec's rule: a submission whose account is NULL belongs to account 1 (rows stored
 * before accounts existed). Written as the very expression the submissions indexes are built
 * on, so a scoped query can use them. `column` names the account_id column (with its alias).
 */
export function accountOf(column: SQL | AnyColumn = sql`account_id`): SQL {
  return sql`coalesce(${column}, 1)`;
}

/** The rows of `accountId`, NULL counting as account 1. */
export function inAccount(accountId: number, column?: SQL | AnyColumn): SQL {
  return sql`${accountOf(column)} = ${accountId}`;
}

// The postgres.js statements of the hot paths (the worker's claim, the insert batcher, the
// audit export's cursor) spell the same expression out: keep them equal to accountOf().
