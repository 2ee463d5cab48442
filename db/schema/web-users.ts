import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** People who sign in to the dashboard, managed by `npm run users`. */
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
    isAdmin: boolean('is_admin').notNull().default(false),
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('web_sessions_user_idx').on(t.userId)],
);
