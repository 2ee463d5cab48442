import { inAccount } from '../../../db/account-scope';
import { eq, sql } from 'drizzle-orm';
import { accounts } from '../../../db/schema';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import type { RegCredentials } from '../../domain/submission-input';

/**
 * Stores the account's durable registry credentials, encrypted, and wakes its submissions
 * that were waiting for credentials: clearing their next_attempt_at fires the queue trigger
 * (db/migrations/0001_worker.sql), which notifies the worker.
 */
export async function saveRegCredentials({ ctx, accountId, creds, requestId }: { ctx: AppContext; accountId: number; creds: RegCredentials; requestId: string }): Promise<void> {
  await withTransaction(ctx, undefined, async (tx) => {
    await tx
      .update(accounts)
      .set({ regCredsEnc: ctx.keyring.encrypt(JSON.stringify(creds)), regCredsSetAt: ctx.clock(), sessionEpoch: sql`${accounts.sessionEpoch} + 1` })
      .where(eq(accounts.id, accountId));
    await tx.execute(sql`UPDATE submissions SET next_attempt_at = NULL WHERE ${inAccount(accountId)} AND status = 'queued'`);
  });
  ctx.journal.write({ event: 'creds_rar_salvate', requestId, accountId, data: { username: creds.username } });
}

export async function clearRegCredentials({ ctx, accountId, requestId }: { ctx: AppContext; accountId: number; requestId: string }): Promise<void> {
  await ctx.db
    .update(accounts)
    .set({ regCredsEnc: null, regCredsSetAt: null, sessionEpoch: sql`${accounts.sessionEpoch} + 1` })
    .where(eq(accounts.id, accountId));
  ctx.journal.write({ event: 'creds_rar_sterse', requestId, accountId });
}

export async function hasRegCredentials(ctx: AppContext, accountId: number): Promise<boolean> {
  const [row] = await ctx.db.select({ enc: accounts.regCredsEnc }).from(accounts).where(eq(accounts.id, accountId));
  return Boolean(row?.enc);
}
