import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { UploadRefusal } from './stagings';

/** The advisory-lock space of the deployment's upload places: (UPLOAD_SPACE, place). */
const UPLOAD_SPACE = 727_013;
/** An account's upload places: (ACCOUNT_UPLOAD_SPACE + place, account), far from the other spaces. */
const ACCOUNT_UPLOAD_SPACE = 1_727_000_000;

/**
 * GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT and GATEWAY_IMPORT_UPLOADS_MAX for the whole deployment,
 * not per server: a place is a session advisory lock held on the upload's own connection
 * (stagings.ts `enter`) until its staging ended, taken with pg_try_advisory_lock (never
 * waiting), so an upload past either limit is refused at once, whichever server it reached. A
 * server that dies frees its places with its connections. The account's place is taken first
 * (the answer then says it is the account's), and given back if the deployment has none.
 * `connection` holds no advisory lock before (connections go back to the pool without one).
 */
export async function takeUploadPlaces(connection: Db, accountId: number, limits: { uploads: number; perAccount: number }): Promise<UploadRefusal | null> {
  const [account] = await connection.execute<{ place: number }>(sql`
    SELECT n AS place FROM generate_series(0, ${limits.perAccount - 1}::int) n
    WHERE pg_try_advisory_lock(${ACCOUNT_UPLOAD_SPACE}::int + n, ${accountId}::int) LIMIT 1`);
  if (!account) return { refused: 'account', limit: limits.perAccount };
  const [deployment] = await connection.execute<{ place: number }>(sql`
    SELECT n AS place FROM generate_series(0, ${limits.uploads - 1}::int) n
    WHERE pg_try_advisory_lock(${UPLOAD_SPACE}::int, n) LIMIT 1`);
  if (deployment) return null;
  await connection.execute(sql`SELECT pg_advisory_unlock(${ACCOUNT_UPLOAD_SPACE}::int + ${account.place}::int, ${accountId}::int)`);
  return { refused: 'deployment', limit: limits.uploads };
}
