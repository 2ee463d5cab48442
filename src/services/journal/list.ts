import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { appEvents } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { journalScope } from '../roles';
import { actorRefOf, nameActors, type JournalActorName } from './actors';

export interface JournalFilters {
  event?: string;
  level?: 'debug' | 'info' | 'warn' | 'error';
  /** Bucharest calendar days, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
  requestId?: string;
  /** The last id of the previous page. */
  before?: number;
  limit: number;
}

export interface JournalRecord {
  id: number;
  ts: Date;
  level: string;
  event: string;
  requestId: string | null;
  accountId: number | null;
  submissionId: number | null;
  /** As stored: redacted by the journal before it was written, like the file. */
  data: unknown;
  /** Who did it, when the row names a user or an API key (services/journal/actors.ts). */
  by: JournalActorName | null;
}

/** Midnight of a Bucharest calendar day, as an instant. */
const bucharestDay = (day: string) => sql`(${day}::date::timestamp AT TIME ZONE 'Europe/Bucharest')`;

/**
 * A page of the journal, newest first: every account's for an administrator (roles.ts), else
 * always narrowed to the actor's account. `allAccounts` says which one it is.
 */
export async function listJournal({ ctx, actor, filters }: { ctx: AppContext; actor: Actor; filters: JournalFilters }) {
  const accountId = journalScope(actor);
  const where: SQL[] = [];
  if (accountId !== null) where.push(eq(appEvents.accountId, accountId));
  if (filters.event) where.push(eq(appEvents.event, filters.event));
  if (filters.level) where.push(eq(appEvents.level, filters.level));
  if (filters.from) where.push(gte(appEvents.ts, bucharestDay(filters.from)));
  if (filters.to) where.push(lt(appEvents.ts, sql`${bucharestDay(filters.to)} + interval '1 day'`));
  if (filters.requestId) where.push(eq(appEvents.requestId, filters.requestId));
  if (filters.before !== undefined) where.push(lt(appEvents.id, filters.before));
  const rows = await ctx.db
    .select()
    .from(appEvents)
    .where(and(...where))
    .orderBy(desc(appEvents.id))
    .limit(filters.limit + 1);
  const page = rows.slice(0, filters.limit);
  const refs = page.map((r) => actorRefOf(r.data));
  const name = await nameActors({ ctx, accountId, refs });
  const items: JournalRecord[] = page.map((r, i) => ({ ...r, by: name(refs[i] ?? null) }));
  return { items, nextBefore: rows.length > filters.limit ? (items.at(-1)?.id ?? null) : null, allAccounts: accountId === null };
}
