import type { Actor } from '../context';

// Who may do what, by role: the services ask here, the transports never decide it.

/** An administrator (a web user with the role) sees every account's journal and learns whose another account's key is; everyone else sees their own account only. */
export const seesEveryAccount = (actor: Actor): boolean => actor.kind === 'user' && actor.admin;

/** The account a journal read is narrowed to, or null for every account (seesEveryAccount). */
export const journalScope = (actor: Actor): number | null => (seesEveryAccount(actor) ? null : actor.accountId);
