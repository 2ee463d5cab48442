import { and, asc, eq, isNull, max, ne } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { webSessions, webUsers } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { ConflictError, NotFoundError } from '../../errors';
import { journalActor } from '../../journal/actor';
import { isRole, requireRole, type Role } from '../roles';

/** A colleague as the administrator's list shows them. */
export interface Person {
  id: number;
  email: string;
  role: Role;
  disabledAt: Date | null;
  createdAt: Date;
  /** The last request of any of their sessions, or null when none is open. */
  lastSeenAt: Date | null;
}

/** The account's people, oldest first: for its administrator only. */
export async function listPeople({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<Person[]> {
  requireRole(actor, 'people');
  const rows = await ctx.db
    .select({
      id: webUsers.id,
      email: webUsers.email,
      role: webUsers.role,
      disabledAt: webUsers.disabledAt,
      createdAt: webUsers.createdAt,
      lastSeenAt: max(webSessions.lastSeenAt),
    })
    .from(webUsers)
    .leftJoin(webSessions, eq(webSessions.userId, webUsers.id))
    .where(eq(webUsers.accountId, actor.accountId))
    .groupBy(webUsers.id)
    .orderBy(asc(webUsers.id));
  return rows.map((r) => ({ ...r, role: isRole(r.role) ? r.role : 'functionar' }));
}

/**
 * Locks the account's colleague `userId` for a change by its administrator; another account's
 * user is the same 404 as a missing one.
 */
async function lockColleague(tx: Executor, accountId: number, userId: number) {
  const [user] = await tx
    .select({ id: webUsers.id, role: webUsers.role, disabledAt: webUsers.disabledAt })
    .from(webUsers)
    .where(and(eq(webUsers.id, userId), eq(webUsers.accountId, accountId)))
    .for('update');
  if (!user) throw new NotFoundError();
  return user;
}

/**
 * An account always keeps an active administrator: otherwise nobody could invite, change a
 * role or save the registry's credentials again but the operator. Checked under a lock of the
 * account's administrators, so two administrators demoting each other at once cannot both win.
 */
async function keepAnAdministrator(tx: Executor, accountId: number, leaving: number) {
  const others = await tx
    .select({ id: webUsers.id })
    .from(webUsers)
    .where(and(eq(webUsers.accountId, accountId), eq(webUsers.role, 'administrator'), isNull(webUsers.disabledAt), ne(webUsers.id, leaving)))
    .for('update');
  if (others.length === 0) throw new ConflictError('Contul trebuie să păstreze un administrator activ: numiți întâi alt administrator.');
}

export async function setRole({ ctx, actor, userId, role, requestId }: { ctx: AppContext; actor: Actor; userId: number; role: Role; requestId: string }): Promise<void> {
  requireRole(actor, 'people');
  const before = await ctx.db.transaction(async (tx) => {
    const user = await lockColleague(tx, actor.accountId, userId);
    if (user.role === role) return role;
    if (user.role === 'administrator') await keepAnAdministrator(tx, actor.accountId, userId);
    await tx.update(webUsers).set({ role }).where(eq(webUsers.id, userId));
    return user.role;
  });
  if (before !== role)
    ctx.journal.write({ event: 'user_role_changed', requestId, accountId: actor.accountId, data: { user_id: userId, de_la: before, la: role, ...journalActor(actor) } });
}

/** A disabled colleague cannot sign in, and every session of theirs ends at once (their next request finds none). */
export async function disableColleague({ ctx, actor, userId, requestId }: { ctx: AppContext; actor: Actor; userId: number; requestId: string }): Promise<void> {
  requireRole(actor, 'people');
  const changed = await ctx.db.transaction(async (tx) => {
    const user = await lockColleague(tx, actor.accountId, userId);
    if (user.disabledAt) return false;
    if (user.role === 'administrator') await keepAnAdministrator(tx, actor.accountId, userId);
    await tx.update(webUsers).set({ disabledAt: ctx.clock() }).where(eq(webUsers.id, userId));
    await tx.delete(webSessions).where(eq(webSessions.userId, userId));
    return true;
  });
  if (changed) ctx.journal.write({ event: 'user_disabled', requestId, accountId: actor.accountId, data: { user_id: userId, ...journalActor(actor) } });
}

export async function enableColleague({ ctx, actor, userId, requestId }: { ctx: AppContext; actor: Actor; userId: number; requestId: string }): Promise<void> {
  requireRole(actor, 'people');
  const changed = await ctx.db.transaction(async (tx) => {
    const user = await lockColleague(tx, actor.accountId, userId);
    if (!user.disabledAt) return false;
    await tx.update(webUsers).set({ disabledAt: null }).where(eq(webUsers.id, userId));
    return true;
  });
  if (changed) ctx.journal.write({ event: 'user_enabled', requestId, accountId: actor.accountId, data: { user_id: userId, ...journalActor(actor) } });
}
