import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import type { ErrorCause } from '../../domain/error-causes';
import { CREDENTIAL_WAIT, SUBMISSION_STATUSES, TO_RESOLVE, type SubmissionStatus } from '../../domain/statuses';
import { COLUMNS, toRecord, waitingForCredentials, type SubmissionRecord } from './read';

// The dashboard's list (Trimiteri): its views, filters, keyset pages both ways with their
// position and total, the errors grouped by cause, and the ids a bulk action works on. The
// JSON API's list stays listSubmissions (read.ts): its filters are exact and its contract fixed.

export type DashboardView = 'de_rezolvat' | 'toate' | SubmissionStatus;

export interface DashboardFilters {
  view: DashboardView;
  date_from?: string;
  date_to?: string;
  /** Any part of a plate or VIN (spaces and dashes ignored, any case); see searchCondition. */
  search?: string;
  cause?: ErrorCause;
}

/** Below this many characters a term has no trigram to look up: it matches the start of a plate or VIN. */
export const SUBSTRING_MIN = 3;

const regErrorCod = sql`${submissions.regError}->>'cod'`;

/** isToResolve (domain/statuses.ts) in SQL, spelled exactly as the submissions_resolve_idx predicate. */
export const toResolveSql = or(inArray(submissions.status, [...TO_RESOLVE]), and(eq(submissions.status, CREDENTIAL_WAIT.status), sql`${regErrorCod} = ${CREDENTIAL_WAIT.cod}`))!;

/** LIKE's own characters in a term are literal: `50%` finds "50%", not everything. */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The search term as stored values are written: no spaces or dashes, upper case. */
export function canonicalTerm(search: string): string {
  return search.replace(/[\s-]/g, '').toUpperCase();
}

/** The held states, written as the submissions_to_resolve_idx predicate (literals: a generic plan still matches the partial index). */
const heldSql = sql.raw(`"submissions"."status" IN (${TO_RESOLVE.map((s) => `'${s}'`).join(', ')})`);

/** What a plate or VIN that passed validation is written with (domain/validate.ts): letters and digits. */
const PLATE_OR_VIN_CHARS = /^[A-Z0-9]+$/;

/**
 * A term of letters and digits is looked up in the trigram indexes. A term with any other
 * character (`%%%`, `___`, `B.12`) has no trigram to look up, and the account's every row was
 * read to match it (over a second for a large account): only a held row can carry such a
 * value (a queued or sent one passed validation), so it is matched among the account's held
 * rows alone, by their own index. Either way LIKE's characters in the term are literal.
 */
function searchCondition(search: string): SQL | undefined {
  const term = canonicalTerm(search);
  if (!term) return undefined;
  const pattern = term.length >= SUBSTRING_MIN ? `%${escapeLike(term)}%` : `${escapeLike(term)}%`;
  const matches = or(sql`${submissions.vin} ILIKE ${pattern}`, sql`${submissions.nrInm} ILIKE ${pattern}`);
  return PLATE_OR_VIN_CHARS.test(term) ? matches : and(heldSql, matches);
}

function viewCondition(view: DashboardView): SQL | undefined {
  if (view === 'de_rezolvat') return toResolveSql;
  if (view === 'toate') return undefined;
  return eq(submissions.status, view);
}

/** Every condition of the filters, the account first; `withCause: false` for the cause chips themselves. */
export function dashboardWhere(accountId: number, f: DashboardFilters, withCause = true): SQL {
  const where: Array<SQL | undefined> = [eq(submissions.scopeAccountId, accountId), viewCondition(f.view)];
  if (f.date_from) where.push(gte(submissions.dataPrestatie, f.date_from));
  if (f.date_to) where.push(lte(submissions.dataPrestatie, f.date_to));
  if (f.search) where.push(searchCondition(f.search));
  if (withCause && f.cause) where.push(sql`${regErrorCod} = ${f.cause}`);
  return and(...where)!;
}

export interface PageRequest {
  limit: number;
  /** The last id of the previous page (forward). */
  after?: number;
  /** The first id of the next page (back). */
  before?: number;
  /** "De rezolvat" reads oldest first (what waited longest); the rest newest first. */
  oldestFirst: boolean;
}

export interface DashboardPage {
  items: SubmissionRecord[];
  /** How many rows match the filters, and how many come before this page; each at most COUNT_CAP when capped. */
  total: number;
  totalCapped: boolean;
  position: number;
  positionCapped: boolean;
}

/**
 * One page by keyset, forward or back, with where it sits in the whole (page N of M). `total`,
 * when the caller already has it (an unfiltered view is one of dashboardCounts' numbers), spares
 * counting the filter's rows again; the rows before the page are counted only past page one.
 */
export async function listDashboard({
  ctx,
  actor,
  filters,
  page,
  total,
}: {
  ctx: AppContext;
  actor: Actor;
  filters: DashboardFilters;
  page: PageRequest;
  total?: Promise<Count>;
}): Promise<DashboardPage> {
  const { accountId } = actor;
  const where = dashboardWhere(accountId, filters);
  const up = page.oldestFirst;
  // "Comes earlier in the reading order than id".
  const earlier = (id: number) => (up ? lt(submissions.id, id) : gt(submissions.id, id));
  const later = (id: number) => (up ? gt(submissions.id, id) : lt(submissions.id, id));
  const back = page.before !== undefined;
  const cursor = back ? earlier(page.before!) : page.after !== undefined ? later(page.after) : undefined;
  const order = back === up ? desc(submissions.id) : asc(submissions.id);
  // The rows before the page: those before the cursor (back) or up to and including it
  // (forward), written as a range so that an index on id can count them.
  const beforeCursor = back ? earlier(page.before!) : page.after !== undefined ? (up ? lte(submissions.id, page.after) : gte(submissions.id, page.after)) : undefined;
  const [rows, totalCount, preceding] = await Promise.all([
    ctx.db.select(COLUMNS).from(submissions).where(and(where, cursor)).orderBy(order).limit(page.limit),
    total ?? cappedCount(ctx, where),
    beforeCursor ? cappedCount(ctx, and(where, beforeCursor)!) : { n: 0, capped: false },
  ]);
  if (back) rows.reverse();
  return {
    items: rows.map(toRecord),
    total: totalCount.n,
    totalCapped: totalCount.capped,
    position: Math.max(0, back ? preceding.n - rows.length : preceding.n),
    positionCapped: preceding.capped,
  };
}

/**
 * A filter's rows are counted up to COUNT_CAP: a search that matches most of a large account
 * ("000") would otherwise read all of them on every poll; past it the screen says "peste".
 */
export const COUNT_CAP = 10_000;

async function cappedCount(ctx: AppContext, where: SQL): Promise<Count> {
  const limited = ctx.db
    .select({ one: sql`1` })
    .from(submissions)
    .where(where)
    .limit(COUNT_CAP + 1)
    .as('limited');
  const [row] = await ctx.db.select({ n: count() }).from(limited);
  const n = row?.n ?? 0;
  return n > COUNT_CAP ? { n: COUNT_CAP, capped: true } : { n, capped: false };
}

/** A count that stops at COUNT_CAP: `capped` says there are more. */
export interface Count {
  n: number;
  capped: boolean;
}

export const sumCounts = (counts: Count[]): Count => ({ n: counts.reduce((a, c) => a + c.n, 0), capped: counts.some((c) => c.capped) });

export interface DashboardCounts {
  byStatus: Record<SubmissionStatus, Count>;
  all: Count;
  /** "De rezolvat": the held states plus the credential waits. */
  toResolve: Count;
  credentialWaits: number;
}

/** How many rows a view holds with no other filter, from the counts alone. */
export function viewTotal(counts: DashboardCounts, view: DashboardView): Count {
  if (view === 'de_rezolvat') return counts.toResolve;
  if (view === 'toate') return counts.all;
  return counts.byStatus[view];
}

/**
 * The counters of every state, each read up to COUNT_CAP from the (account, status) index: an
 * account with a million rows sent costs ten thousand index entries per poll, not a million,
 * and its chip says "10.000+". One statement, so a poll holds one connection for it.
 */
export async function dashboardCounts({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<DashboardCounts> {
  const { accountId } = actor;
  const states = sql.join(
    SUBMISSION_STATUSES.map((s) => sql`(${s})`),
    sql`, `,
  );
  const [rows, credentialWaits] = await Promise.all([
    ctx.db.execute<{ status: SubmissionStatus; n: number }>(sql`
      SELECT s.status, (SELECT count(*)::int FROM (
        SELECT 1 FROM ${submissions} WHERE ${eq(submissions.scopeAccountId, accountId)} AND ${submissions.status} = s.status LIMIT ${COUNT_CAP + 1}
      ) AS limited) AS n
      FROM (VALUES ${states}) AS s(status)`),
    waitingForCredentials({ ctx, actor }),
  ]);
  const byStatus = Object.fromEntries(SUBMISSION_STATUSES.map((s) => [s, { n: 0, capped: false }])) as Record<SubmissionStatus, Count>;
  for (const row of rows) byStatus[row.status] = row.n > COUNT_CAP ? { n: COUNT_CAP, capped: true } : { n: row.n, capped: false };
  return {
    byStatus,
    all: sumCounts(SUBMISSION_STATUSES.map((s) => byStatus[s])),
    toResolve: sumCounts([...TO_RESOLVE.map((s) => byStatus[s]), { n: credentialWaits, capped: false }]),
    credentialWaits,
  };
}

/** The registry errors of the view grouped by code, most frequent first (the cause filter's chips). */
export async function countCauses({ ctx, actor, filters }: { ctx: AppContext; actor: Actor; filters: DashboardFilters }): Promise<Array<{ cod: string; n: number }>> {
  const { accountId } = actor;
  const rows = await ctx.db
    .select({ cod: sql<string>`${regErrorCod}`, n: count() })
    .from(submissions)
    .where(and(dashboardWhere(accountId, filters, false), sql`${regErrorCod} IS NOT NULL`))
    .groupBy(regErrorCod)
    .orderBy(desc(count()), asc(regErrorCod));
  return rows;
}

/** The ids and states the filters match now, at most `cap` + 1 (so that a caller sees it went over). */
export async function matchingRows(tx: Executor, accountId: number, filters: DashboardFilters, cap: number) {
  return tx
    .select({ id: submissions.id, status: submissions.status })
    .from(submissions)
    .where(dashboardWhere(accountId, filters))
    .orderBy(asc(submissions.id))
    .limit(cap + 1);
}
