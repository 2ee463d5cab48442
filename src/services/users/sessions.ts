import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { webSessions, webUsers } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import type { HashLane } from '../../crypto/hash-gate';
import { decoyHash, verifyPassword } from '../../crypto/password';
import { isRole, type Role } from '../roles';

export interface SessionUser {
  userId: number;
  accountId: number;
  email: string;
  /** The operator's administrator (every account's journal). */
  admin: boolean;
  /** Within the account (services/roles.ts). */
  role: Role;
}

/** Who acts when a signed-in user does: the services read the account and the role from it. */
export const userActor = (user: SessionUser): Actor => ({ kind: 'user', accountId: user.accountId, userId: user.userId, admin: user.admin, role: user.role });

export interface Session {
  user: SessionUser;
  csrfToken: string;
  /** The session's id in the user's list of devices (services/users/devices.ts). */
  id: number;
}

/** Where a session was opened from, for the user's list of devices. */
export interface Device {
  userAgent: string | undefined;
  address: string;
}

/** A stored role that is not one of ROLES (a hand-edited row) gives the lesser one. */
const readRole = (stored: string): Role => (isRole(stored) ? stored : 'functionar');
/** The longest user agent kept: enough to name the browser and system. */
const USER_AGENT_MAX = 300;

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
    .select({ userId: webUsers.id, accountId: webUsers.accountId, email: webUsers.email, admin: webUsers.isAdmin, role: webUsers.role, passwordHash: webUsers.passwordHash })
    .from(webUsers)
    .where(and(sql`lower(${webUsers.email}) = ${normalEmail(email)}`, isNull(webUsers.disabledAt)));
  const matches = await verifyPassword(password, user?.passwordHash ?? decoyHash(ctx.config.GATEWAY_SCRYPT_N), lane);
  if (!user || !matches) return null;
  const { passwordHash: _hash, role, ...rest } = user;
  return { ...rest, role: readRole(role) };
}

/**
 * A new session (a fresh token at every sign-in); the token goes to the cookie, its hash to the
 * table, with the browser and address the user's list of devices shows.
 */
export async function openSession(
  ctx: AppContext,
  user: Pick<SessionUser, 'userId'>,
  replacing: string | undefined,
  device: Device,
): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await ctx.db.transaction(async (tx) => {
    if (replacing) await tx.delete(webSessions).where(eq(webSessions.tokenHash, sha256Hex(replacing)));
    await tx.insert(webSessions).values({
      tokenHash: sha256Hex(token),
      userId: user.userId,
      csrfToken,
      userAgent: device.userAgent?.slice(0, USER_AGENT_MAX),
      address: device.address,
    });
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
      role: webUsers.role,
      disabledAt: webUsers.disabledAt,
      csrfToken: webSessions.csrfToken,
      id: webSessions.id,
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
  const { csrfToken, id, userId, accountId, email, admin, role } = row;
  return { user: { userId, accountId, email, admin, role: readRole(role) }, csrfToken, id };
}

export async function closeSession(ctx: AppContext, token: string): Promise<void> {
  await ctx.db.delete(webSessions).where(eq(webSessions.tokenHash, sha256Hex(token)));
}
