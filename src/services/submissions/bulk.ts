import { createHash } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { journalActor } from '../../journal/actor';
import { withTransaction } from '../../context';
import { allows, DELETABLE, refusal, type SubmissionStatus } from '../../domain/statuses';
import { ConflictError } from '../../errors';
import { dashboardWhere, type DashboardFilters } from './dashboard';
import { requeueChanges } from './lifecycle';
import { updateSubmissions } from './store';

// Delete or requeue many submissions at once, in two steps: `previewBulk` counts what the
// selection matches now and which of those the per-row rules allow (the confirmation says
// exactly that number); `applyBulk` does it in one transaction for exactly the rows confirmed,
// and refuses when they changed in between (a fingerprint of their ids).

export type BulkAction = 'requeue' | 'delete';

/** The most rows one action touches: one transaction, row locks and journal lines stay bounded. */
export const BULK_CAP = 5_000;

/** Either the rows ticked on the page, or everything the list's filters match. */
export type BulkTarget = { ids: number[] } | { filters: DashboardFilters };

export interface BulkPlan {
  action: BulkAction;
  /** Rows the action will change, in id order. */
  ids: number[];
  /** Rows it leaves alone, grouped by why (a state that does not allow it, still held, gone). */
  skipped: Array<{ reason: string; n: number }>;
  /** The selection matched more than BULK_CAP rows: nothing is offered. */
  overCap: boolean;
  fingerprint: string;
}

type Candidate = { id: number; status: SubmissionStatus; payload: unknown };

async function candidates(tx: Executor, accountId: number, target: BulkTarget, lock: boolean): Promise<Candidate[]> {
  // Another account's id is simply not found: never counted, never touched.
  const where = 'ids' in target ? and(eq(submissions.scopeAccountId, accountId), inArray(submissions.id, target.ids)) : dashboardWhere(accountId, target.filters);
  const query = tx
    .select({ id: submissions.id, status: submissions.status, payload: submissions.payloadJson })
    .from(submissions)
    .where(where)
    .orderBy(asc(submissions.id))
    .limit(BULK_CAP + 1);
  return lock ? query.for('update') : query;
}

export function fingerprint(action: BulkAction, ids: number[]): string {
  return createHash('sha256')
    .update(`${action}:${ids.join(',')}`)
    .digest('base64url')
    .slice(0, 22);
}

type RowUpdate = Extract<Awaited<ReturnType<typeof requeueChanges>>, { ok: true }>['update'];

/** The per-row rules (allows, refusal, requeueChanges) over the candidates, with each requeue's changes. */
async function plan(
  ctx: AppContext,
  tx: Executor,
  accountId: number,
  action: BulkAction,
  target: BulkTarget,
  rows: Candidate[],
): Promise<BulkPlan & { updates: Map<number, RowUpdate> }> {
  const overCap = rows.length > BULK_CAP;
  const ids: number[] = [];
  const updates = new Map<number, RowUpdate>();
  const skipped = new Map<string, number>();
  const skip = (reason: string) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
  if (!overCap) {
    for (const row of rows) {
      if (action === 'delete') {
        if (allows(row.status, 'delete')) ids.push(row.id);
        else skip(refusal(row.status, 'delete'));
      } else {
        const changes = await requeueChanges(ctx, tx, accountId, row);
        if (changes.ok) {
          ids.push(row.id);
          updates.set(row.id, changes.update);
        } else skip(row.status === 'needs_data' || row.status === 'needs_mapping' ? 'Încă nu poate fi repusă: așteaptă date sau mapări.' : changes.reason);
      }
    }
    if ('ids' in target) {
      const gone = new Set(target.ids).size - rows.length;
      if (gone > 0) skipped.set('Nu mai există (ștearsă între timp).', gone);
    }
  }
  return { action, ids, skipped: [...skipped].map(([reason, n]) => ({ reason, n })), overCap, fingerprint: fingerprint(action, ids), updates };
}

/** The confirmation's numbers: read only, nothing locked. */
export async function previewBulk({ ctx, actor, action, target }: { ctx: AppContext; actor: Actor; action: BulkAction; target: BulkTarget }): Promise<BulkPlan> {
  const { accountId } = actor;
  const { updates: _updates, ...counted } = await plan(ctx, ctx.db, accountId, action, target, await candidates(ctx.db, accountId, target, false));
  return counted;
}

/**
 * Does the confirmed action, in one transaction with the rows locked: the plan is made again
 * and must be the one confirmed (same rows, same fingerprint), else nothing is written and a
 * 409 says how many it would be now. Journaled per row with who, like the single actions.
 */
export async function applyBulk({
  ctx,
  action,
  target,
  confirmed,
  actor,
  requestId,
}: {
  ctx: AppContext;
  action: BulkAction;
  target: BulkTarget;
  confirmed: string;
  actor: Actor;
  requestId: string;
}): Promise<{ done: number }> {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const rows = await candidates(tx, accountId, target, true);
    const now = await plan(ctx, tx, accountId, action, target, rows);
    if (now.overCap || now.fingerprint !== confirmed) {
      throw new ConflictError(
        `Între timp s-au schimbat trimiterile alese: acum ar fi ${now.overCap ? `peste ${BULK_CAP}` : now.ids.length}. Nu s-a modificat nimic; verificați din nou.`,
      );
    }
    const chosen = new Set(now.ids);
    const from = new Map(rows.filter((r) => chosen.has(r.id)).map((r) => [r.id, r.status]));
    if (action === 'delete') {
      await tx.delete(submissions).where(and(inArray(submissions.id, now.ids), inArray(submissions.status, [...DELETABLE])));
    } else {
      // An `error` row only goes back to the queue: those in one statement; a held one carries
      // its fresh classification, one statement each.
      const plain = rows.filter((r) => chosen.has(r.id) && r.status === 'error').map((r) => r.id);
      if (plain.length > 0) await updateSubmissions(tx, plain, now.updates.get(plain[0]!)!);
      for (const [id, update] of now.updates) {
        if (from.get(id) !== 'error') await updateSubmissions(tx, [id], update);
      }
    }
    const event = action === 'delete' ? 'submission_deleted' : 'submission_requeued';
    for (const [id, status] of from) ctx.journal.write({ event, requestId, accountId, submissionId: id, data: { from: status, bulk: true, ...journalActor(actor) } });
    ctx.journal.write({ event: 'submissions_bulk', requestId, accountId, data: { action, count: now.ids.length, ...journalActor(actor) } });
    return { done: now.ids.length };
  });
}
