import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { accounts, webSessions, webUserLinks, webUsers } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import { hashPassword } from '../../crypto/password';
import { AppError, ConflictError, NotFoundError } from '../../errors';
import { journalActor } from '../../journal/actor';
import { isRole, requireRole, type Role } from '../roles';
import { type SessionUser, userActor } from './sessions';
import { byEmail, checkEmail, checkPassword, EMAIL_TAKEN } from './users';

// Single-use links (db/schema/web-users.ts, web_user_links): an invitation sets a colleague's
// password and makes them a user of the account; a reset sets a user's new password and ends
// every session they had. The token is shown or e-mailed once; only its SHA-256 is stored, and
// no token ever reaches the journal.

export const INVITATION_HOURS = 72;
export const RESET_MINUTES = 30;

export type LinkKind = 'invitatie' | 'resetare';

/** A link just issued: `token` goes into the address, once. */
export interface IssuedLink {
  id: number;
  token: string;
  email: string;
  expiresAt: Date;
}

/** What a valid link's page says before its password is chosen. */
export interface OpenLink {
  kind: LinkKind;
  email: string;
  accountName: string;
  role: Role | null;
}

export interface PendingInvitation {
  id: number;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
}

const newToken = () => randomBytes(32).toString('base64url');
const later = (ctx: AppContext, ms: number) => new Date(ctx.clock().getTime() + ms);
const readRole = (value: string | null): Role => (isRole(value) ? value : 'functionar');

const refused = () => new AppError('LINK_INVALID', 'Linkul a fost deja folosit, a fost anulat sau a expirat.');

/** A link is live while it is unspent, not cancelled and not past its expiry (by the context's clock). */
const live = (ctx: AppContext, tokenHash: string, kind: LinkKind) =>
  and(eq(webUserLinks.tokenHash, tokenHash), eq(webUserLinks.kind, kind), isNull(webUserLinks.usedAt), isNull(webUserLinks.cancelledAt), gt(webUserLinks.expiresAt, ctx.clock()));

async function insertLink(tx: Executor, values: typeof webUserLinks.$inferInsert): Promise<number> {
  const [row] = await tx.insert(webUserLinks).values(values).returning({ id: webUserLinks.id });
  return row!.id;
}

/**
 * An invitation to `email` with `role`. An address that is already a user's (of any account:
 * an address signs in to one account) is refused; an earlier pending invitation of the same
 * address to this account is cancelled, so only the newest link works.
 */
export async function inviteColleague({
  ctx,
  actor,
  email,
  role,
  requestId,
}: {
  ctx: AppContext;
  actor: Actor;
  email: string;
  role: Role;
  requestId: string;
}): Promise<IssuedLink> {
  requireRole(actor, 'people');
  const address = checkEmail(email);
  const token = newToken();
  const expiresAt = later(ctx, INVITATION_HOURS * 3_600_000);
  const id = await ctx.db.transaction(async (tx) => {
    const [known] = await tx.select({ id: webUsers.id }).from(webUsers).where(byEmail(address));
    if (known) throw new ConflictError(EMAIL_TAKEN);
    await tx
      .update(webUserLinks)
      .set({ cancelledAt: ctx.clock() })
      .where(
        and(
          eq(webUserLinks.accountId, actor.accountId),
          eq(webUserLinks.kind, 'invitatie'),
          sql`lower(${webUserLinks.email}) = lower(${address})`,
          isNull(webUserLinks.usedAt),
          isNull(webUserLinks.cancelledAt),
        ),
      );
    return insertLink(tx, {
      kind: 'invitatie',
      accountId: actor.accountId,
      email: address,
      role,
      tokenHash: sha256Hex(token),
      createdBy: actor.kind === 'user' ? actor.userId : null,
      expiresAt,
    });
  });
  ctx.journal.write({ event: 'user_invited', requestId, accountId: actor.accountId, data: { invitatie_id: id, rol: role, ...journalActor(actor) } });
  return { id, token, email: address, expiresAt };
}

/** The account's invitations still waiting to be accepted, oldest first. */
export async function listInvitations({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<PendingInvitation[]> {
  requireRole(actor, 'people');
  const rows = await ctx.db
    .select({ id: webUserLinks.id, email: webUserLinks.email, role: webUserLinks.role, createdAt: webUserLinks.createdAt, expiresAt: webUserLinks.expiresAt })
    .from(webUserLinks)
    .where(
      and(
        eq(webUserLinks.accountId, actor.accountId),
        eq(webUserLinks.kind, 'invitatie'),
        isNull(webUserLinks.usedAt),
        isNull(webUserLinks.cancelledAt),
        gt(webUserLinks.expiresAt, ctx.clock()),
      ),
    )
    .orderBy(asc(webUserLinks.id));
  return rows.map((r) => ({ ...r, role: readRole(r.role) }));
}

export async function cancelInvitation({ ctx, actor, id, requestId }: { ctx: AppContext; actor: Actor; id: number; requestId: string }): Promise<void> {
  requireRole(actor, 'people');
  const rows = await ctx.db
    .update(webUserLinks)
    .set({ cancelledAt: ctx.clock() })
    .where(
      and(eq(webUserLinks.id, id), eq(webUserLinks.accountId, actor.accountId), eq(webUserLinks.kind, 'invitatie'), isNull(webUserLinks.usedAt), isNull(webUserLinks.cancelledAt)),
    )
    .returning({ id: webUserLinks.id });
  if (rows.length === 0) throw new NotFoundError();
  ctx.journal.write({ event: 'invitation_cancelled', requestId, accountId: actor.accountId, data: { invitatie_id: id, ...journalActor(actor) } });
}

async function insertReset(ctx: AppContext, tx: Executor, user: { id: number; accountId: number; email: string }, createdBy: number | null): Promise<IssuedLink> {
  const token = newToken();
  const expiresAt = later(ctx, RESET_MINUTES * 60_000);
  const id = await insertLink(tx, { kind: 'resetare', accountId: user.accountId, email: user.email, userId: user.id, tokenHash: sha256Hex(token), createdBy, expiresAt });
  return { id, token, email: user.email, expiresAt };
}

/** A reset link the account's administrator issues for a colleague (without SMTP, the only way back in). */
export async function issueReset({ ctx, actor, userId, requestId }: { ctx: AppContext; actor: Actor; userId: number; requestId: string }): Promise<IssuedLink> {
  requireRole(actor, 'people');
  const link = await ctx.db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: webUsers.id, accountId: webUsers.accountId, email: webUsers.email, disabledAt: webUsers.disabledAt })
      .from(webUsers)
      .where(and(eq(webUsers.id, userId), eq(webUsers.accountId, actor.accountId)));
    if (!user) throw new NotFoundError();
    if (user.disabledAt) throw new ConflictError('Utilizatorul este dezactivat: activați-l întâi.');
    return insertReset(ctx, tx, user, actor.kind === 'user' ? actor.userId : null);
  });
  ctx.journal.write({ event: 'reset_link_issued', requestId, accountId: actor.accountId, data: { user_id: userId, ...journalActor(actor) } });
  return link;
}

/**
 * A reset asked for by e-mail ("Am uitat parola"): a link for an active user of that address,
 * or null. The caller answers the same words either way.
 */
export async function requestReset({ ctx, email, requestId }: { ctx: AppContext; email: string; requestId: string }): Promise<IssuedLink | null> {
  const [user] = await ctx.db
    .select({ id: webUsers.id, accountId: webUsers.accountId, email: webUsers.email })
    .from(webUsers)
    .where(and(byEmail(email), isNull(webUsers.disabledAt)));
  if (!user) return null;
  const link = await insertReset(ctx, ctx.db, user, null);
  ctx.journal.write({ event: 'reset_requested', requestId, accountId: user.accountId, data: { user_id: user.id } });
  return link;
}

/** The live link of `token`, for its page; LINK_INVALID (410) when spent, cancelled, expired or its user disabled. */
export async function readLink(ctx: AppContext, token: string, kind: LinkKind): Promise<OpenLink> {
  const [link] = await ctx.db
    .select({ email: webUserLinks.email, role: webUserLinks.role, accountName: accounts.name, userDisabled: webUsers.disabledAt })
    .from(webUserLinks)
    .innerJoin(accounts, eq(accounts.id, webUserLinks.accountId))
    .leftJoin(webUsers, eq(webUsers.id, webUserLinks.userId))
    .where(live(ctx, sha256Hex(token), kind));
  if (!link || link.userDisabled) throw refused();
  return { kind, email: link.email, accountName: link.accountName, role: kind === 'invitatie' ? readRole(link.role) : null };
}

/** Spends the live link of `token` in `tx`, or throws LINK_INVALID: of two uses at once, one wins. */
async function spend(ctx: AppContext, tx: Executor, token: string, kind: LinkKind) {
  const [link] = await tx
    .update(webUserLinks)
    .set({ usedAt: ctx.clock() })
    .where(live(ctx, sha256Hex(token), kind))
    .returning({ id: webUserLinks.id, accountId: webUserLinks.accountId, email: webUserLinks.email, role: webUserLinks.role, userId: webUserLinks.userId });
  if (!link) throw refused();
  return link;
}

/** The invited colleague chooses a password: they become a user of the account with the invitation's role. */
export async function acceptInvitation({ ctx, token, password, requestId }: { ctx: AppContext; token: string; password: string; requestId: string }): Promise<SessionUser> {
  checkPassword(password);
  await readLink(ctx, token, 'invitatie');
  const passwordHash = await hashPassword(password, ctx.config.GATEWAY_SCRYPT_N);
  const user = await ctx.db.transaction(async (tx) => {
    const link = await spend(ctx, tx, token, 'invitatie');
    const role = readRole(link.role);
    const [row] = await tx
      .insert(webUsers)
      .values({ accountId: link.accountId, email: link.email, passwordHash, role, isAdmin: false })
      .onConflictDoNothing()
      .returning({ id: webUsers.id });
    // The address became a user's since the invitation: the link stays unspent (rolled back).
    if (!row) throw new ConflictError(EMAIL_TAKEN);
    return { userId: row.id, accountId: link.accountId, email: link.email, admin: false, role, invitationId: link.id };
  });
  const { invitationId, ...sessionUser } = user;
  ctx.journal.write({
    event: 'invitation_accepted',
    requestId,
    accountId: user.accountId,
    data: { invitatie_id: invitationId, user_id: user.userId, ...journalActor(userActor(sessionUser)) },
  });
  return sessionUser;
}

/** A new password through a reset link: every session of the user ends, and their other reset links with them. */
export async function completeReset({ ctx, token, password, requestId }: { ctx: AppContext; token: string; password: string; requestId: string }): Promise<SessionUser> {
  checkPassword(password);
  await readLink(ctx, token, 'resetare');
  const passwordHash = await hashPassword(password, ctx.config.GATEWAY_SCRYPT_N);
  const { user, ended } = await ctx.db.transaction(async (tx) => {
    const link = await spend(ctx, tx, token, 'resetare');
    const [row] = await tx
      .update(webUsers)
      .set({ passwordHash })
      .where(and(eq(webUsers.id, link.userId ?? 0), isNull(webUsers.disabledAt)))
      .returning({ userId: webUsers.id, accountId: webUsers.accountId, email: webUsers.email, admin: webUsers.isAdmin, role: webUsers.role });
    if (!row) throw refused();
    const sessions = await tx.delete(webSessions).where(eq(webSessions.userId, row.userId)).returning({ id: webSessions.id });
    await tx
      .update(webUserLinks)
      .set({ cancelledAt: ctx.clock() })
      .where(and(eq(webUserLinks.userId, row.userId), eq(webUserLinks.kind, 'resetare'), isNull(webUserLinks.usedAt), isNull(webUserLinks.cancelledAt)));
    return { user: { ...row, role: readRole(row.role) }, ended: sessions.length };
  });
  ctx.journal.write({ event: 'reset_used', requestId, accountId: user.accountId, data: { user_id: user.userId, sesiuni_inchise: ended, ...journalActor(userActor(user)) } });
  return user;
}
