import { inAccount } from '../../../db/account-scope';
import { and, desc, eq, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import { submissions } from '../../../db/schema';
import type { AppContext } from '../../context';
import { NotFoundError, readRegError } from '../../errors';


const VIEW = {
  id: submissions.id,
  status: submissions.status,
  vin: submissions.vin,
  nrInm: submissions.nrInm,
  dataPrestatie: submissions.dataPrestatie,
  prestatii: submissions.prestatii,
  motiv: submissions.motiv,
  nemapate: submissions.nemapate,
  erori: submissions.erori,
  regError: submissions.regError,
  batchId: submissions.batchId,
  rowIndex: submissions.rowIndex,
  registryId: submissions.registryId,
  attempts: submissions.attempts,
  createdAt: submissions.createdAt,
  updatedAt: submissions.updatedAt,
  sentAt: submissions.sentAt,
  purgeAfter: submissions.purgeAfter,
};

type ViewRow = { [K in keyof typeof VIEW]: (typeof VIEW)[K]['_']['data'] | null };

/** The allow-list of what GET returns: never the payload, the key, the image or credentials. */
export function toView(row: ViewRow) {
  return {
    submission_id: row.id,
    status: row.status,
    vin: row.vin,
    nrInm: row.nrInm,
    dataPrestatie: row.dataPrestatie,
    prestatii: row.prestatii ?? [],
    motiv: row.motiv,
    nemapate: row.nemapate ?? [],
    erori: row.erori ?? [],
    reg_error: readRegError(row.regError),
    registry_id: row.registryId,
    attempts: row.attempts,
    batch_id: row.batchId,
    row_index: row.rowIndex,
    created_at: row.createdAt?.toISOString() ?? null,
    updated_at: row.updatedAt?.toISOString() ?? null,
    sent_at: row.sentAt?.toISOString() ?? null,
    purge_after: row.purgeAfter?.toISOString() ?? null,
  };
}
export type SubmissionView = ReturnType<typeof toView>;

export async function getSubmission({ ctx, accountId, id }: { ctx: AppContext; accountId: number; id: number }): Promise<SubmissionView> {
  const [row] = await ctx.db.select(VIEW).from(submissions).where(and(eq(submissions.id, id), inAccount(accountId, submissions.accountId)));
  if (!row) throw new NotFoundError();
  return toView(row);
}

export interface ListFilters {
  status?: string;
  date_from?: string;
  date_to?: string;
  vin?: string;
  batch_id?: number;
  limit: number;
  cursor?: number;
}

/** Newest first; the cursor is the last id of the previous page. */
export async function listSubmissions({ ctx, accountId, filters }: { ctx: AppContext; accountId: number; filters: ListFilters }) {
  const where: SQL[] = [inAccount(accountId, submissions.accountId)];
  if (filters.status) where.push(eq(submissions.status, filters.status));
  if (filters.date_from) where.push(gte(submissions.dataPrestatie, filters.date_from));
  if (filters.date_to) where.push(lte(submissions.dataPrestatie, filters.date_to));
  if (filters.vin) where.push(eq(submissions.vin, filters.vin.trim().toUpperCase()));
  if (filters.batch_id !== undefined) where.push(eq(submissions.batchId, filters.batch_id));
  if (filters.cursor !== undefined) where.push(lt(submissions.id, filters.cursor));
  const rows = await ctx.db
    .select(VIEW)
    .from(submissions)
    .where(and(...where))
    .orderBy(desc(submissions.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  return { items: page.map(toView), next_cursor: rows.length > filters.limit && last ? encodeCursor(last.id) : null };
}

export function encodeCursor(id: number): string {
  return Buffer.from(`s:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}
