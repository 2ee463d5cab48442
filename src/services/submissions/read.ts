import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { submissionAttempts, submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import type { ContentError, RegError } from '../../errors';
import { NotFoundError, readRegError } from '../../errors';
import type { ResolvedItem } from '../../domain/resolve';
import { CREDENTIAL_WAIT, type SubmissionStatus } from '../../domain/statuses';

/** The allow-list of what is ever read back: never the payload, the key, the image or credentials. */
export const COLUMNS = {
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
  // The odometers as sent (canonical), for the panel and its correction form.
  odometruInitial: sql<string | null>`${submissions.payloadJson}->>'odometruInitial'`,
  odometruFinal: sql<string | null>`${submissions.payloadJson}->>'odometruFinal'`,
};

type Row = { [K in keyof typeof COLUMNS]: (typeof COLUMNS)[K] extends SQL<infer T> ? T : (typeof COLUMNS)[K] extends { _: { data: infer D } } ? D | null : never };

/** A submission as services hand it to the transports (JSON presenter, web components). */
export interface SubmissionRecord {
  id: number;
  status: SubmissionStatus;
  vin: string;
  nrInm: string;
  dataPrestatie: string;
  prestatii: ResolvedItem[];
  motiv: string | null;
  nemapate: string[];
  erori: ContentError[];
  regError: RegError | null;
  registryId: string | null;
  attempts: number;
  batchId: number | null;
  rowIndex: number | null;
  createdAt: Date;
  updatedAt: Date;
  sentAt: Date | null;
  purgeAfter: Date | null;
  odometruInitial: string | null;
  odometruFinal: string | null;
}

export function toRecord(row: Row): SubmissionRecord {
  return {
    id: row.id!,
    status: row.status!,
    vin: row.vin!,
    nrInm: row.nrInm!,
    dataPrestatie: row.dataPrestatie!,
    prestatii: (row.prestatii as ResolvedItem[] | null) ?? [],
    motiv: row.motiv,
    nemapate: (row.nemapate as string[] | null) ?? [],
    erori: (row.erori as ContentError[] | null) ?? [],
    regError: readRegError(row.regError),
    registryId: row.registryId,
    attempts: row.attempts ?? 0,
    batchId: row.batchId,
    rowIndex: row.rowIndex,
    createdAt: row.createdAt!,
    updatedAt: row.updatedAt!,
    sentAt: row.sentAt,
    purgeAfter: row.purgeAfter,
    odometruInitial: row.odometruInitial,
    odometruFinal: row.odometruFinal,
  };
}

export async function getSubmission({ ctx, actor, id }: { ctx: AppContext; actor: Actor; id: number }): Promise<SubmissionRecord> {
  const { accountId } = actor;
  const [row] = await ctx.db
    .select(COLUMNS)
    .from(submissions)
    .where(and(eq(submissions.id, id), eq(submissions.scopeAccountId, accountId)));
  if (!row) throw new NotFoundError();
  return toRecord(row);
}

export interface ListFilters {
  statuses?: readonly SubmissionStatus[];
  date_from?: string;
  date_to?: string;
  vin?: string;
  /** A plate or a VIN, exactly (spaces and dashes ignored, any case). */
  search?: string;
  batch_id?: number;
  limit: number;
  /** The last id of the previous page. */
  after?: number;
  /** Oldest first (the dashboard's "De rezolvat"); newest first otherwise. */
  oldestFirst?: boolean;
}

export interface SubmissionPage {
  items: SubmissionRecord[];
  /** The id to continue after, or null on the last page. */
  nextAfter: number | null;
}

/** One page in id order (keyset: the page after `after`, never an offset). */
export async function listSubmissions({ ctx, actor, filters }: { ctx: AppContext; actor: Actor; filters: ListFilters }): Promise<SubmissionPage> {
  const { accountId } = actor;
  const where: SQL[] = [eq(submissions.scopeAccountId, accountId)];
  if (filters.statuses?.length) where.push(inArray(submissions.status, [...filters.statuses]));
  if (filters.date_from) where.push(gte(submissions.dataPrestatie, filters.date_from));
  if (filters.date_to) where.push(lte(submissions.dataPrestatie, filters.date_to));
  if (filters.vin) where.push(eq(submissions.vin, filters.vin.trim().toUpperCase()));
  if (filters.search) {
    const term = filters.search.replace(/[\s-]/g, '').toUpperCase();
    where.push(or(eq(submissions.vin, term), eq(submissions.nrInm, term))!);
  }
  if (filters.batch_id !== undefined) where.push(eq(submissions.batchId, filters.batch_id));
  if (filters.after !== undefined) where.push(filters.oldestFirst ? gt(submissions.id, filters.after) : lt(submissions.id, filters.after));
  const rows = await ctx.db
    .select(COLUMNS)
    .from(submissions)
    .where(and(...where))
    .orderBy(filters.oldestFirst ? asc(submissions.id) : desc(submissions.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  return { items: page.map(toRecord), nextAfter: rows.length > filters.limit ? (page.at(-1)?.id ?? null) : null };
}

/** Rows a list reads, maps and presents in one turn of the event loop: a page of 500 at once held it 10-20 ms (bench:abuse 5b). */
const PART_ROWS = 100;

/**
 * A page of `filters.limit` rows as consecutive parts of at most PART_ROWS, each read (keyset,
 * after the last) once the one before was taken; the last part's `nextAfter` is the page's.
 */
export async function* listSubmissionParts(args: { ctx: AppContext; actor: Actor; filters: ListFilters }): AsyncGenerator<SubmissionPage> {
  let { limit: left, after } = args.filters;
  for (;;) {
    const part = await listSubmissions({ ...args, filters: { ...args.filters, limit: Math.min(left, PART_ROWS), after } });
    yield part;
    left -= part.items.length;
    if (left <= 0 || part.nextAfter === null) return;
    after = part.nextAfter;
  }
}

/**
 * How many of the account's submissions sit in the queue waiting for registry credentials
 * (domain/statuses.ts CREDENTIAL_WAIT): the dashboard's "De rezolvat" and the banner count them.
 */
export async function waitingForCredentials({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<number> {
  const { accountId } = actor;
  const [row] = await ctx.db
    .select({ n: count() })
    .from(submissions)
    .where(and(eq(submissions.scopeAccountId, accountId), eq(submissions.status, CREDENTIAL_WAIT.status), sql`${submissions.regError}->>'cod' = ${CREDENTIAL_WAIT.cod}`));
  return row?.n ?? 0;
}

export interface AttemptRecord {
  attemptNo: number;
  startedAt: Date;
  endedAt: Date | null;
  httpStatus: number | null;
  /** What the worker says happened (worker/failures.ts AttemptOutcome); null while it runs. */
  outcome: string | null;
  errorCode: string | null;
  resultStatus: string | null;
  latencyMs: number | null;
}

/** The delivery attempts of a submission the caller has already found in its account. */
export async function listAttempts({ ctx, submissionId }: { ctx: AppContext; submissionId: number }): Promise<AttemptRecord[]> {
  return ctx.db
    .select({
      attemptNo: submissionAttempts.attemptNo,
      startedAt: submissionAttempts.startedAt,
      endedAt: submissionAttempts.endedAt,
      httpStatus: submissionAttempts.httpStatus,
      outcome: submissionAttempts.outcome,
      errorCode: submissionAttempts.errorCode,
      resultStatus: submissionAttempts.resultStatus,
      latencyMs: submissionAttempts.latencyMs,
    })
    .from(submissionAttempts)
    .where(eq(submissionAttempts.submissionId, submissionId))
    .orderBy(asc(submissionAttempts.attemptNo));
}
