import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { accounts, webSessions, webUsers } from '../../../db/schema';
import { hashPassword, passwordProblem } from '../../crypto/password';
import { AppError, ConflictError, NotFoundError } from '../../errors';
import type { Role } from '../roles';
import { normalEmail } from './sessions';

export const byEmail = (email: string) => sql`lower(${webUsers.email}) = ${normalEmail(email)}`;

export const EMAIL_TAKEN = 'Există deja un utilizator cu această adresă de e-mail.';

/** A password a user may choose, or CERERE_INVALIDA (the web's forms answer it as FORMULAR_INVALID). */
export function checkPassword(password: string) {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('CERERE_INVALIDA', problem, 'parola');
}

/** The address as typed, trimmed, when it looks like one; else CERERE_INVALIDA. */
export function checkEmail(text: string): string {
  const email = text.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new AppError('CERERE_INVALIDA', 'Adresa de e-mail nu este validă.', 'email');
  return email;
}

export async function createUser(db: Db, input: { accountId: number; email: string; password: string; admin: boolean; role?: Role; scryptN: number }): Promise<number> {
  const email = checkEmail(input.email);
  checkPassword(input.password);
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, input.accountId));
  if (!account) throw new NotFoundError();
  const passwordHash = await hashPassword(input.password, input.scryptN);
  const [row] = await db
    .insert(webUsers)
    .values({ accountId: input.accountId, email, passwordHash, isAdmin: input.admin, role: input.role ?? 'administrator' })
    .onConflictDoNothing()
    .returning({ id: webUsers.id });
  if (!row) throw new ConflictError(EMAIL_TAKEN);
  return row.id;
}

export async function listUsers(db: Db) {
  return db
    .select({
      id: webUsers.id,
      accountId: webUsers.accountId,
      email: webUsers.email,
      isAdmin: webUsers.isAdmin,
      role: webUsers.role,
      disabledAt: webUsers.disabledAt,
      createdAt: webUsers.createdAt,
    })
    .from(webUsers)
    .orderBy(asc(webUsers.id));
}

/** A new password ends every session of the user (a stolen session dies with the old password). */
export async function resetPassword(db: Db, input: { email: string; password: string; scryptN: number }): Promise<void> {
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password, input.scryptN);
  await db.transaction(async (tx) => {
    const [user] = await tx.update(webUsers).set({ passwordHash }).where(byEmail(input.email)).returning({ id: webUsers.id });
    if (!user) throw new NotFoundError();
    await tx.delete(webSessions).where(eq(webSessions.userId, user.id));
  });
}

/** A disabled user cannot sign in, and their open sessions end at once. */
export async function disableUser(db: Db, email: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [user] = await tx
      .update(webUsers)
      .set({ disabledAt: sql`coalesce(${webUsers.disabledAt}, now())` })
      .where(byEmail(email))
      .returning({ id: webUsers.id });
    if (!user) throw new NotFoundError();
    await tx.delete(webSessions).where(eq(webSessions.userId, user.id));
  });
}

/** The operator's way back for a user disabled by mistake (the account's administrator has the same button). */
export async function enableUser(db: Db, email: string): Promise<void> {
  const [user] = await db.update(webUsers).set({ disabledAt: null }).where(byEmail(email)).returning({ id: webUsers.id });
  if (!user) throw new NotFoundError();
}
