import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { submissions } from '../../../db/schema';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import { classifyContent } from '../../domain/classify';
import type { CanonicalContent } from '../../domain/canonical';
import { allows, DELETABLE, refusal } from '../../domain/statuses';
import { ConflictError, NotFoundError } from '../../errors';
import { loadResolutionContext } from '../operations/context';
import { inAccount } from '../../../db/account-scope';
import type { Actor } from '../../context';
import { journalActor } from '../../journal/actor';

/** Scope first (another account's id is a plain 404), then state (409 with the reason). */
export async function lockInScope(tx: Executor, accountId: number, id: number) {
  const [row] = await tx
    .select({
      id: submissions.id,
      status: submissions.status,
      payload: submissions.payloadJson,
      accountId: submissions.accountId,
      regErrorCod: sql<string | null>`${submissions.regError}->>'cod'`,
    })
    .from(submissions)
    .where(and(eq(submissions.id, id), inAccount(accountId, submissions.accountId)))
    .for('update');
  if (!row) throw new NotFoundError();
  return row;
}

export async function deleteSubmission({ ctx, accountId, id, requestId, actor }: { ctx: AppContext; accountId: number; id: number; requestId: string; actor?: Actor }) {
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    if (!allows(row.status, 'delete')) throw new ConflictError(refusal(row.status, 'delete'));
    await tx.delete(submissions).where(and(eq(submissions.id, id), inArray(submissions.status, [...DELETABLE])));
    ctx.journal.write({ event: 'submission_deleted', requestId, accountId, submissionId: id, data: { from: row.status, ...journalActor(actor) } });
    return { id, previousStatus: row.status };
  });
}

/**
 * Puts a blocked submission back: an `error` one straight into the queue; a held one is
 * classified again with today's mappings and rules, and is refused if it would still be held.
 */
export async function requeueSubmission({ ctx, accountId, id, requestId, actor }: { ctx: AppContext; accountId: number; id: number; requestId: string; actor?: Actor }) {
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    if (!allows(row.status, 'requeue')) throw new ConflictError(refusal(row.status, 'requeue'));
    let update: Partial<typeof submissions.$inferInsert> = {};
    if (row.status !== 'error') {
      const content = row.payload as CanonicalContent;
      const verdict = classifyContent(content, await loadResolutionContext(ctx, tx, accountId, content.prestatii), { rejectUnmapped: false, now: ctx.clock() });
      if (verdict.status !== 'queued') throw new ConflictError(`Trimiterea nu poate fi repusă: ${verdict.motiv}`);
      update = { prestatii: verdict.prestatii, erori: [], nemapate: [], motiv: null };
    }
    await tx
      .update(submissions)
      .set({ ...update, status: 'queued', purgeAfter: null, attempts: 0, nextAttemptAt: null, workerId: null, updatedAt: sql`now()` })
      .where(eq(submissions.id, id));
    ctx.journal.write({ event: 'submission_requeued', requestId, accountId, submissionId: id, data: { from: row.status, ...journalActor(actor) } });
    return { id, previousStatus: row.status };
  });
}
