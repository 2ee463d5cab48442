import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

// The registry session of each account, shared by every worker of the deployment and kept
// across restarts (worker/shared-sessions.ts), so that N workers, or a restart of all of them,
// do not log every account in again. The token is envelope-encrypted under the master key and
// never journaled; a row made under another `session_epoch` of the account serves no one.
export const registrySessions = pgTable('registry_sessions', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  epoch: integer('epoch').notNull(),
  tokenEnc: text('token_enc').notNull(),
  /** One login's id: a token refused on a data call retires that login only, never a newer one. */
  loginId: text('login_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  workerId: text('worker_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
