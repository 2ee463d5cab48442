import { accounts, webUsers } from '../../../db/schema';
import type { AppContext } from '../../context';
import { readCui } from '../../domain/cui';
import { hashPassword } from '../../crypto/password';
import { AppError, ConflictError } from '../../errors';
import { journalActor } from '../../journal/actor';
import { type SessionUser, userActor } from './sessions';
import { checkEmail, checkPassword } from './users';

export interface SignUpInput {
  name: string;
  cui: string;
  email: string;
  password: string;
}

/** What the form must say when the CUI is taken: which workshop asks whom is the point, and a CUI is public. */
export const CUI_TAKEN = 'Pentru acest CUI există deja un cont. Cereți administratorului lui o invitație.';
/** The one thing said of a known address: the form cannot succeed with it, and it says no more (not whose it is). */
export const EMAIL_NOT_USABLE = 'Această adresă de e-mail nu poate fi folosită pentru un cont nou. Folosiți alta, sau intrați cu ea (dacă ați uitat parola: „Am uitat parola”).';

/**
 * A workshop joins: its account (with its CUI, one account per CUI by the unique index) and its
 * first user, the account's administrator, in one transaction; a taken CUI or address leaves
 * nothing behind. Whether sign-up is open and how often an address may try is the caller's.
 */
export async function signUp({ ctx, input, requestId }: { ctx: AppContext; input: SignUpInput; requestId: string }): Promise<SessionUser> {
  const name = input.name.trim().replace(/\s+/g, ' ');
  if (name.length < 2 || name.length > 200) throw new AppError('CERERE_INVALIDA', 'Scrieți numele service-ului (2–200 de caractere).', 'nume');
  const cui = readCui(input.cui);
  if (!cui.ok) throw new AppError('CERERE_INVALIDA', cui.problem, 'cui');
  const email = checkEmail(input.email);
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password, ctx.config.GATEWAY_SCRYPT_N);
  const user = await ctx.db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name, cui: cui.cui }).onConflictDoNothing().returning({ id: accounts.id });
    if (!account) throw new ConflictError(CUI_TAKEN);
    const [row] = await tx
      .insert(webUsers)
      .values({ accountId: account.id, email, passwordHash, role: 'administrator', isAdmin: false })
      .onConflictDoNothing()
      .returning({ id: webUsers.id });
    if (!row) throw new AppError('CONFLICT_STARE', EMAIL_NOT_USABLE, 'email');
    return { userId: row.id, accountId: account.id, email, admin: false, role: 'administrator' as const };
  });
  ctx.journal.write({ event: 'account_signed_up', requestId, accountId: user.accountId, data: { user_id: user.userId, ...journalActor(userActor(user)) } });
  return user;
}
