import { randomUUID } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import type { WorkerContext } from './context';
import { MARGIN_MS, type Session } from './sessions';

/** The advisory-lock space of registry logins; the second key is the account id. */
const LOGIN_LOCK = 727_020;

type Row = { epoch: number; token_enc: string; login_id: string; expires_at: Date | string };
/** The pool, or the login's transaction. */
type Query = WorkerContext['sql'] | TransactionSql;

const read = (sql: Query, accountId: number) =>
  sql<Row[]>`SELECT epoch, token_enc, login_id, expires_at FROM registry_sessions WHERE account_id = ${accountId}`.then((rows) => rows[0]);

/** The stored session when it serves this epoch and has time left; a token that no longer decrypts (a retired master key) does not. */
function usable(ctx: WorkerContext, row: Row | undefined, epoch: number): Session | undefined {
  if (!row || row.epoch !== epoch) return undefined;
  const expiresAt = new Date(row.expires_at).getTime();
  if (expiresAt - MARGIN_MS <= ctx.clock().getTime()) return undefined;
  try {
    return { token: ctx.keyring.decrypt(row.token_enc), expiresAt, epoch, loginId: row.login_id };
  } catch {
    return undefined;
  }
}

function remember(ctx: WorkerContext, accountId: number, session: Session): Session {
  ctx.sessions.set(accountId, session);
  return session;
}

/**
 * The account's registry session as the deployment shares it: one another worker made (or
 * this one, before a restart) while it is good for the epoch; else one login, under an
 * advisory lock, so that workers that miss it at once log in once between them. The lock is
 * a transaction's, held for the login's round trip on the connection it took; nothing inside
 * asks the pool for another one. A row of a newer epoch is never replaced by an older one.
 * `login` gets the transaction, to read and write the account's refused credentials under the
 * lock; the transaction commits whether it succeeds or throws.
 */
export async function sharedSession(ctx: WorkerContext, accountId: number, epoch: number, login: (tx: TransactionSql) => Promise<Session>): Promise<Session> {
  const stored = usable(ctx, await read(ctx.sql, accountId), epoch);
  if (stored) return remember(ctx, accountId, stored);
  const result = await ctx.sql.begin(async (tx): Promise<{ session: Session } | { refused: unknown }> => {
    await tx`SELECT pg_advisory_xact_lock(${LOGIN_LOCK}, ${accountId})`;
    const madeMeanwhile = usable(ctx, await read(tx, accountId), epoch);
    if (madeMeanwhile) return { session: remember(ctx, accountId, madeMeanwhile) };
    let session: Session;
    try {
      session = await login(tx);
    } catch (error) {
      // Committed all the same: what `login` wrote of a refusal (login.ts) must hold before
      // the lock lets the next login of the account in.
      return { refused: error };
    }
    session.loginId = randomUUID();
    await tx`
      INSERT INTO registry_sessions (account_id, epoch, token_enc, login_id, expires_at, worker_id)
      VALUES (${accountId}, ${epoch}, ${ctx.keyring.encrypt(session.token)}, ${session.loginId}, ${new Date(session.expiresAt).toISOString()}::timestamptz, ${ctx.workerId})
      ON CONFLICT (account_id) DO UPDATE SET epoch = EXCLUDED.epoch, token_enc = EXCLUDED.token_enc, login_id = EXCLUDED.login_id,
        expires_at = EXCLUDED.expires_at, worker_id = EXCLUDED.worker_id, created_at = now()
      WHERE registry_sessions.epoch <= EXCLUDED.epoch`;
    return { session };
  });
  if ('refused' in result) throw result.refused;
  return result.session;
}

/**
 * A token the registry refused on a data call: over for every send of the account, in this
 * worker and in the others. Only that login's row goes; a newer one stays. If the row cannot
 * be deleted now, the next worker to use it is refused too and retires it then.
 */
export async function retireSession(ctx: WorkerContext, accountId: number, session: Session): Promise<void> {
  ctx.sessions.drop(accountId, session.token);
  if (!session.loginId) return;
  try {
    await ctx.sql`DELETE FROM registry_sessions WHERE account_id = ${accountId} AND login_id = ${session.loginId}`;
  } catch (error) {
    ctx.journal.write({ event: 'worker_session_retire_failed', level: 'warn', accountId, data: { error: String(error) } });
  }
}
