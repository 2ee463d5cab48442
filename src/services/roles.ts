import type { Actor } from '../context';
import { AppError } from '../errors';

// Who may do what, by role: the services ask here, the transports never decide it. The screens
// ask too (`may`), only to leave out what the role cannot do; a forged request still meets the
// service's refusal (`requireRole`), the same INTERZIS the API would answer.

/** The roles within an account. */
export const ROLES = ['administrator', 'functionar'] as const;
export type Role = (typeof ROLES)[number];

/** A role as the screens and e-mails name it. */
export const ROLE_NAMES: Record<Role, string> = { administrator: 'administrator al contului', functionar: 'funcționar' };

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/**
 * What a web user's role allows beyond the daily work. The daily work (import, map, correct,
 * requeue, delete) is every role's and needs no entry. An API key and development mode act as
 * the account's program, which the spec lets save its registry credentials: they are not
 * people, so `people` is never theirs.
 */
export type Action = 'people' | 'credentials' | 'settings';

const ADMINISTRATOR_ONLY: Record<Action, { keys: boolean; cause: string }> = {
  people: { keys: false, cause: 'Doar administratorul contului invită colegi, le schimbă rolul și îi dezactivează.' },
  credentials: { keys: true, cause: 'Doar administratorul contului schimbă credențialele registrului.' },
  settings: { keys: true, cause: 'Doar administratorul contului schimbă setările contului.' },
};

/** The role of a web user (absent on an actor made before roles: a user then could do everything). */
export const roleOf = (actor: Actor): Role | null => (actor.kind === 'user' ? (actor.role ?? 'administrator') : null);

export function may(actor: Actor, action: Action): boolean {
  if (actor.kind !== 'user') return ADMINISTRATOR_ONLY[action].keys;
  return roleOf(actor) === 'administrator';
}

/** Throws INTERZIS (403) when `actor` may not do `action`. */
export function requireRole(actor: Actor, action: Action): void {
  if (!may(actor, action)) throw new AppError('INTERZIS', ADMINISTRATOR_ONLY[action].cause);
}

/** An administrator (a web user with the role) sees every account's journal and learns whose another account's key is; everyone else sees their own account only. */
export const seesEveryAccount = (actor: Actor): boolean => actor.kind === 'user' && actor.admin;

/** The account a journal read is narrowed to, or null for every account (seesEveryAccount). */
export const journalScope = (actor: Actor): number | null => (seesEveryAccount(actor) ? null : actor.accountId);
