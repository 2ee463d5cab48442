import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { classifyContent } from '../../domain/classify';
import type { CanonicalContent } from '../../domain/canonical';
import { allows, DELETABLE, refusal, type SubmissionStatus } from '../../domain/statuses';
import { ConflictError, NotFoundError } from '../../errors';
import { loadResolutionContext } from '../operations/context';
import { journalActor } from '../../journal/actor';
import { REQUEUED, requeuedColumns, updateSubmissions, type SubmissionChanges } from './store';

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
    .where(and(eq(submissions.id, id), eq(submissions.scopeAccountId, accountId)))
    .for('update');
  if (!row) throw new NotFoundError();
  return row;
}

export async function deleteSubmission({ ctx, id, requestId, actor }: { ctx: AppContext; id: number; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    if (!allows(row.status, 'delete')) throw new ConflictError(refusal(row.status, 'delete'));
    await tx.delete(submissions).where(and(eq(submissions.id, id), inArray(submissions.status, [...DELETABLE])));
    ctx.journal.write({ event: 'submission_deleted', requestId, accountId, submissionId: id, data: { from: row.status, ...journalActor(actor) } });
    return { id, previousStatus: row.status };
  });
}

/**
 * What a requeue writes for one locked row, or why it is refused: an `error` one goes straight
 * into the queue; a held one is classified again with today's mappings and rules, and is
 * refused if it would still be held. The single action and the bulk one (bulk.ts) share it.
 */
export async function requeueChanges(
  ctx: AppContext,
  tx: Executor,
  accountId: number,
  row: { status: SubmissionStatus; payload: unknown },
): Promise<{ ok: true; update: SubmissionChanges } | { ok: false; reason: string }> {
  if (!allows(row.status, 'requeue')) return { ok: false, reason: refusal(row.status, 'requeue') };
  if (row.status === 'error') return { ok: true, update: REQUEUED };
  const content = row.payload as CanonicalContent;
  const now = ctx.clock();
  const verdict = classifyContent(content, await loadResolutionContext(ctx, tx, accountId, content.prestatii), { rejectUnmapped: false, now });
  if (verdict.status !== 'queued') return { ok: false, reason: `Trimiterea nu poate fi repusă: ${verdict.motiv}` };
  return { ok: true, update: requeuedColumns(verdict, now) };
}

/** Puts a blocked submission back (see requeueChanges); refused with a 409 and its reason. */
export async function requeueSubmission({ ctx, id, requestId, actor }: { ctx: AppContext; id: number; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    const changes = await requeueChanges(ctx, tx, accountId, row);
    if (!changes.ok) throw new ConflictError(changes.reason);
    await updateSubmissions(tx, [id], changes.update);
    ctx.journal.write({ event: 'submission_requeued', requestId, accountId, submissionId: id, data: { from: row.status, ...journalActor(actor) } });
    return { id, previousStatus: row.status };
  });
}
