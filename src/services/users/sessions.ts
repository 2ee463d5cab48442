import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { webSessions, webUsers } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import type { HashLane } from '../../crypto/hash-gate';
import { decoyHash, verifyPassword } from '../../crypto/password';

export interface SessionUser {
  userId: number;
  accountId: number;
  email: string;
  admin: boolean;
}

/** Who acts when a signed-in user does: the services read the account and the role from it. */
export const userActor = (user: SessionUser): Actor => ({ kind: 'user', accountId: user.accountId, userId: user.userId, admin: user.admin });

export interface Session {
  user: SessionUser;
  csrfToken: string;
}

/** last_seen_at is written at most this often: a page of polling is not a write per request. */
const TOUCH_EVERY_MS = 60_000;

/** The form of an e-mail address that sign-in compares and limits by. */
export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * Checks an e-mail and password. An unknown or disabled e-mail costs the same scrypt as a
 * wrong password, in the same lane of the same bounded queue, so neither the time of the
 * answer nor a 429 tells which was wrong. Throws HashQueueFull when that lane is full.
 */
export async function checkCredentials(ctx: AppContext, email: string, password: string, lane: HashLane): Promise<SessionUser | null> {
  const [user] = await ctx.db
    .select({ userId: webUsers.id, accountId: webUsers.accountId, email: webUsers.email, admin: webUsers.isAdmin, passwordHash: webUsers.passwordHash })
    .from(webUsers)
    .where(and(sql`lower(${webUsers.email}) = ${normalEmail(email)}`, isNull(webUsers.disabledAt)));
  const matches = await verifyPassword(password, user?.passwordHash ?? decoyHash(ctx.config.GATEWAY_SCRYPT_N), lane);
  if (!user || !matches) return null;
  const { passwordHash: _hash, ...rest } = user;
  return rest;
}

/** A new session (a fresh token at every sign-in); the token goes to the cookie, its hash to the table. */
export async function openSession(ctx: AppContext, user: SessionUser, replacing: string | undefined): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await ctx.db.transaction(async (tx) => {
    if (replacing) await tx.delete(webSessions).where(eq(webSessions.tokenHash, sha256Hex(replacing)));
    await tx.insert(webSessions).values({ tokenHash: sha256Hex(token), userId: user.userId, csrfToken });
  });
  return { token, csrfToken };
}

/** The live session of a cookie's token, or null (unknown, idle too long, user disabled). */
export async function findSession(ctx: AppContext, token: string): Promise<Session | null> {
  const hash = sha256Hex(token);
  const [row] = await ctx.db
    .select({
      userId: webUsers.id,
      accountId: webUsers.accountId,
      email: webUsers.email,
      admin: webUsers.isAdmin,
      disabledAt: webUsers.disabledAt,
      csrfToken: webSessions.csrfToken,
      lastSeenAt: webSessions.lastSeenAt,
    })
    .from(webSessions)
    .innerJoin(webUsers, eq(webUsers.id, webSessions.userId))
    .where(eq(webSessions.tokenHash, hash));
  if (!row || row.disabledAt) return null;
  const idleMs = ctx.clock().getTime() - row.lastSeenAt.getTime();
  if (idleMs > ctx.config.GATEWAY_SESSION_IDLE_MIN * 60_000) {
    await ctx.db.delete(webSessions).where(eq(webSessions.tokenHash, hash));
    return null;
  }
  if (idleMs > TOUCH_EVERY_MS) await ctx.db.update(webSessions).set({ lastSeenAt: ctx.clock() }).where(eq(webSessions.tokenHash, hash));
  const { csrfToken, userId, accountId, email, admin } = row;
  return { user: { userId, accountId, email, admin }, csrfToken };
}

export async function closeSession(ctx: AppContext, token: string): Promise<void> {
  await ctx.db.delete(webSessions).where(eq(webSessions.tokenHash, sha256Hex(token)));
}
