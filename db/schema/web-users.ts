import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** People who sign in to the dashboard: created by `npm run users`, the sign-up or an invitation. */
export const webUsers = pgTable(
  'web_users',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    // Stored as typed; compared lower-cased (the unique index below).
    email: text('email').notNull(),
    // scrypt$N$r$p$salt$hash (base64): the parameters travel with the hash, so raising the
    // cost later leaves existing passwords valid.
    passwordHash: text('password_hash').notNull(),
    // The operator's administrator (every account's journal), not the account's.
    isAdmin: boolean('is_admin').notNull().default(false),
    // Within the account (services/roles.ts): `administrator` or `functionar`. Users created
    // before roles existed could do everything, so the default keeps them administrators.
    role: text('role').notNull().default('administrator'),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('web_users_email_idx').on(sql`lower(${t.email})`), index('web_users_account_idx').on(t.accountId)],
);

/** Signed-in sessions: only the SHA-256 of the cookie's token is kept. */
export const webSessions = pgTable(
  'web_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => webUsers.id, { onDelete: 'cascade' }),
    // Sent back by every non-GET request (meta tag → X-CSRF-Token, or the _csrf field).
    csrfToken: text('csrf_token').notNull(),
    // What the user's list of devices shows and ends a session by (services/users/devices.ts).
    id: integer('id').generatedByDefaultAsIdentity(),
    userAgent: text('user_agent'),
    address: text('address'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('web_sessions_user_idx').on(t.userId), uniqueIndex('web_sessions_id_idx').on(t.id)],
);

/**
 * Single-use links: an invitation (a colleague sets their password and becomes a user of the
 * account with `role`) or a password reset (of `user_id`). Only the SHA-256 of the link's token
 * is kept; a link is spent (`used_at`), cancelled, or past `expires_at`.
 */
export const webUserLinks = pgTable(
  'web_user_links',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    kind: text('kind', { enum: ['invitatie', 'resetare'] }).notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    // The invitee's address (an invitation); the reset's user's (for the administrator's list).
    email: text('email').notNull(),
    role: text('role'),
    userId: integer('user_id').references(() => webUsers.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    // Who issued it: the administrator, or nobody (a reset the user asked for by e-mail).
    createdBy: integer('created_by').references(() => webUsers.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('web_user_links_token_idx').on(t.tokenHash), index('web_user_links_account_idx').on(t.accountId, t.kind)],
);
