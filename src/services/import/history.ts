import { sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context';
import type { ImportBatchStatus } from '../../domain/import-state';
import type { SubmissionStatus } from '../../domain/statuses';
import { readStagingFailure, type StagingFailure } from './staging-failure';

/** An earlier import as the list shows it: what, when, by whom, how many rows, and how it stands. */
export interface ImportBatchItem {
  id: number;
  filename: string | null;
  createdAt: Date;
  /** The dashboard user's e-mail, else the API key's label (`cheie_api:3`); null before migration 0013. */
  createdBy: string | null;
  rowCount: number;
  status: ImportBatchStatus;
  committedAt: Date | null;
  error: StagingFailure | null;
}

/**
 * The account's imports, newest first (the import screen's "Importuri anterioare"), so that a
 * clerk comes back to one left half done. A user is named by e-mail, a key by its label.
 */
export async function listImportBatches({ ctx, actor, limit = 20 }: { ctx: AppContext; actor: Actor; limit?: number }): Promise<ImportBatchItem[]> {
  const { accountId } = actor;
  const rows = await ctx.db.execute<{
    id: number;
    filename: string | null;
    created_at: string | Date;
    created_by: string | null;
    email: string | null;
    row_count: number;
    status: ImportBatchStatus;
    committed_at: string | Date | null;
    error: unknown;
  }>(sql`
    SELECT b.id, b.filename, b.created_at, b.created_by, u.email, b.row_count, b.status, b.committed_at, b.error
    FROM import_batches b
    LEFT JOIN web_users u ON u.account_id = b.account_id AND b.created_by = 'utilizator:' || u.id
    WHERE b.account_id = ${accountId}
    ORDER BY b.id DESC LIMIT ${limit}`);
  return rows.map((r) => ({
    id: r.id,
    filename: r.filename,
    createdAt: new Date(r.created_at),
    createdBy: r.email ?? r.created_by,
    rowCount: r.row_count,
    status: r.status,
    committedAt: r.committed_at === null ? null : new Date(r.committed_at),
    error: r.status === 'failed' ? readStagingFailure(r.error) : null,
  }));
}

/** How the submissions a committed import made stand now, by status: the rows followed until sent. */
export async function batchSubmissionStatuses({ ctx, actor, batchId }: { ctx: AppContext; actor: Actor; batchId: number }): Promise<Partial<Record<SubmissionStatus, number>>> {
  const { accountId } = actor;
  const rows = await ctx.db.execute<{ status: SubmissionStatus; n: number }>(sql`
    SELECT status, count(*)::int AS n FROM submissions WHERE scope_account_id = ${accountId} AND batch_id = ${batchId} GROUP BY status`);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * The state now of each submission a committed import's rows became (`ids`: a page's
 * `submission_id`s), by id; a submission deleted since is absent.
 */
export async function rowSubmissionStatuses({
  ctx,
  actor,
  batchId,
  ids,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  ids: readonly number[];
}): Promise<Map<number, SubmissionStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.execute<{ id: string; status: SubmissionStatus }>(sql`
    SELECT id, status FROM submissions
    WHERE scope_account_id = ${actor.accountId} AND batch_id = ${batchId} AND id = ANY(string_to_array(${ids.join(',')}, ',')::bigint[])`);
  return new Map(rows.map((r) => [Number(r.id), r.status]));
}
