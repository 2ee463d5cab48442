import { and, eq, sql } from 'drizzle-orm';
import { accounts, submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import type { RegCredentials } from '../../domain/submission-input';
import { journalActor } from '../../journal/actor';
import { requireRole } from '../roles';
import { REQUEUED } from '../submissions/store';

/**
 * Stores the account's durable registry credentials, encrypted, and wakes its submissions
 * that were waiting for credentials: clearing their next_attempt_at fires the queue trigger
 * (db/migrations/0001_worker.sql), which notifies the worker. With `requeueLoginRefused`, the
 * errors a refused login left (reg_error REG_LOGIN_RESPINS) go back to the queue in the same
 * transaction, so new credentials and their retry are never half-written; the count is what
 * the confirmation tells the clerk.
 */
export async function saveRegCredentials({
  ctx,
  actor,
  creds,
  requestId,
  requeueLoginRefused = false,
}: {
  ctx: AppContext;
  actor: Actor;
  creds: RegCredentials;
  requestId: string;
  requeueLoginRefused?: boolean;
}): Promise<{ requeued: number }> {
  requireRole(actor, 'credentials');
  const accountId = actor.accountId;
  const requeued = await withTransaction(ctx, undefined, async (tx) => {
    await tx
      .update(accounts)
      .set({ regCredsEnc: ctx.keyring.encrypt(JSON.stringify(creds)), regCredsSetAt: ctx.clock(), sessionEpoch: sql`${accounts.sessionEpoch} + 1` })
      .where(eq(accounts.id, accountId));
    await tx.execute(sql`UPDATE submissions SET next_attempt_at = NULL WHERE scope_account_id = ${accountId} AND status = 'queued'`);
    if (!requeueLoginRefused) return [];
    // As requeueSubmission does for one error.
    const rows = await tx
      .update(submissions)
      .set({ ...REQUEUED, updatedAt: sql`now()` })
      .where(
        and(
          eq(submissions.scopeAccountId, accountId),
          eq(submissions.status, 'error'),
          sql`${submissions.regError} IS NOT NULL AND ${submissions.regError} ->> 'cod' = 'REG_LOGIN_RESPINS'`,
        ),
      )
      .returning({ id: submissions.id });
    return rows.map((r) => r.id);
  });
  // The username stays out: the journal keeps no part of the credentials (journal/redact.ts would mask it anyway).
  ctx.journal.write({ event: 'creds_rar_salvate', requestId, accountId, data: { repuse_in_coada: requeued.length, ...journalActor(actor) } });
  for (const id of requeued) {
    ctx.journal.write({ event: 'submission_requeued', requestId, accountId, submissionId: id, data: { from: 'error', cauza: 'REG_LOGIN_RESPINS', ...journalActor(actor) } });
  }
  return { requeued: requeued.length };
}

export async function clearRegCredentials({ ctx, actor, requestId }: { ctx: AppContext; actor: Actor; requestId: string }): Promise<void> {
  requireRole(actor, 'credentials');
  await ctx.db
    .update(accounts)
    .set({ regCredsEnc: null, regCredsSetAt: null, sessionEpoch: sql`${accounts.sessionEpoch} + 1` })
    .where(eq(accounts.id, actor.accountId));
  ctx.journal.write({ event: 'creds_rar_sterse', requestId, accountId: actor.accountId, data: journalActor(actor) });
}

/**
 * The account's `on_unmapped_error_default` (spec: integer, 0 by default): 1 rejects a
 * submission with an unmapped code when the request does not say, 0 holds it as needs_mapping.
 */
export async function setUnmappedDefault({ ctx, actor, reject, requestId }: { ctx: AppContext; actor: Actor; reject: boolean; requestId: string }): Promise<void> {
  requireRole(actor, 'settings');
  await ctx.db
    .update(accounts)
    .set({ onUnmappedErrorDefault: reject ? 1 : 0 })
    .where(eq(accounts.id, actor.accountId));
  ctx.journal.write({ event: 'cont_on_unmapped_error', requestId, accountId: actor.accountId, data: { on_unmapped_error_default: reject ? 1 : 0, ...journalActor(actor) } });
}

export async function hasRegCredentials({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<boolean> {
  const [row] = await ctx.db.select({ enc: accounts.regCredsEnc }).from(accounts).where(eq(accounts.id, actor.accountId));
  return Boolean(row?.enc);
}
