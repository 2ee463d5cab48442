import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { accounts, apiKeys, appEvents } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { NotFoundError } from '../../errors';
import { registrySessionLive } from '../../domain/registry-token';
import type { JournalEventName } from '../../journal/events';

/** How the account's last registry login ended, as the worker journals it (worker/login.ts). */
export type LoginOutcome = 'ok' | 'rejected' | 'network_error' | 'registry_error' | 'failed';
export interface LastLogin {
  at: Date;
  outcome: LoginOutcome;
  httpStatus: number | null;
}

const LOGIN_OUTCOMES: readonly string[] = ['ok', 'rejected', 'network_error', 'registry_error', 'failed'];

async function lastLoginOf(ctx: AppContext, accountId: number): Promise<LastLogin | null> {
  const [row] = await ctx.db
    .select({ ts: appEvents.ts, data: appEvents.data })
    .from(appEvents)
    .where(and(eq(appEvents.accountId, accountId), eq(appEvents.event, 'rar_login')))
    .orderBy(desc(appEvents.id))
    .limit(1);
  if (!row) return null;
  const data = (row.data ?? {}) as Record<string, unknown>;
  const outcome = typeof data.outcome === 'string' && LOGIN_OUTCOMES.includes(data.outcome) ? (data.outcome as LoginOutcome) : 'failed';
  return { at: row.ts, outcome, httpStatus: typeof data.http_status === 'number' ? data.http_status : null };
}

async function lastEvent(ctx: AppContext, accountId: number, event: JournalEventName, where = sql`true`): Promise<Date | null> {
  const [row] = await ctx.db
    .select({ ts: appEvents.ts })
    .from(appEvents)
    .where(and(eq(appEvents.accountId, accountId), eq(appEvents.event, event), where))
    .orderBy(desc(appEvents.id))
    .limit(1);
  return row?.ts ?? null;
}

/**
 * What the Cont screen shows: key prefixes (never a key), whether registry credentials are
 * set and since when (never the credentials), the on_unmapped_error default, and the
 * account's last successful registry login and the last login's outcome.
 */
export async function accountOverview({ ctx, actor }: { ctx: AppContext; actor: Actor }) {
  const { accountId } = actor;
  const [account] = await ctx.db
    .select({
      name: accounts.name,
      hasCreds: sql<boolean>`${accounts.regCredsEnc} IS NOT NULL`,
      credsSetAt: accounts.regCredsSetAt,
      rejectUnmapped: accounts.onUnmappedErrorDefault,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw new NotFoundError();
  const [keys, lastLogin, lastAnyLogin] = await Promise.all([
    ctx.db
      .select({ id: apiKeys.id, prefix: apiKeys.prefix, name: apiKeys.name, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId))
      .orderBy(asc(apiKeys.id)),
    lastEvent(ctx, accountId, 'rar_login', sql`${appEvents.data}->>'outcome' = 'ok'`),
    lastLoginOf(ctx, accountId),
  ]);
  return {
    name: account.name,
    keys,
    hasCreds: account.hasCreds,
    credsSetAt: account.credsSetAt,
    rejectUnmappedByDefault: account.rejectUnmapped !== 0,
    lastRegistryLogin: lastLogin,
    /** The last login whatever its outcome: Cont says whether it was refused. */
    lastLoginAttempt: lastAnyLogin,
    // A refused login since, or credentials saved since (the worker drops the session then), ends it.
    registrySessionLive:
      lastLogin !== null && registrySessionLive(lastLogin, ctx.clock()) && lastAnyLogin?.outcome === 'ok' && !(account.credsSetAt && account.credsSetAt > lastLogin),
  };
}
export type AccountOverview = Awaited<ReturnType<typeof accountOverview>>;
