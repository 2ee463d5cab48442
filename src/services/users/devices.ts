import { and, desc, eq, ne } from 'drizzle-orm';
import { webSessions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { NotFoundError } from '../../errors';
import { journalActor } from '../../journal/actor';

/** A signed-in session of the user, as their list of devices shows it. */
export interface DeviceSession {
  id: number;
  userAgent: string | null;
  address: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

function userOf(actor: Actor): number {
  if (actor.kind !== 'user') throw new NotFoundError();
  return actor.userId;
}

/** Where the user is signed in, most recent first: their own sessions only. */
export async function listDevices({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<DeviceSession[]> {
  return ctx.db
    .select({ id: webSessions.id, userAgent: webSessions.userAgent, address: webSessions.address, createdAt: webSessions.createdAt, lastSeenAt: webSessions.lastSeenAt })
    .from(webSessions)
    .where(eq(webSessions.userId, userOf(actor)))
    .orderBy(desc(webSessions.lastSeenAt), desc(webSessions.id));
}

/** Ends one of the user's sessions (a lost phone, a shared PC); another user's is the same 404 as a missing one. */
export async function endDevice({ ctx, actor, id, requestId }: { ctx: AppContext; actor: Actor; id: number; requestId: string }): Promise<void> {
  const ended = await ctx.db
    .delete(webSessions)
    .where(and(eq(webSessions.id, id), eq(webSessions.userId, userOf(actor))))
    .returning({ id: webSessions.id });
  if (ended.length === 0) throw new NotFoundError();
  ctx.journal.write({ event: 'session_ended', requestId, accountId: actor.accountId, data: { sesiuni: 1, ...journalActor(actor) } });
}

/** Ends every session of the user but `keep` (the one asking). */
export async function endOtherDevices({ ctx, actor, keep, requestId }: { ctx: AppContext; actor: Actor; keep: number; requestId: string }): Promise<number> {
  const ended = await ctx.db
    .delete(webSessions)
    .where(and(eq(webSessions.userId, userOf(actor)), ne(webSessions.id, keep)))
    .returning({ id: webSessions.id });
  if (ended.length > 0) ctx.journal.write({ event: 'session_ended', requestId, accountId: actor.accountId, data: { sesiuni: ended.length, ...journalActor(actor) } });
  return ended.length;
}
