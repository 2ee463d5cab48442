import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const accounts = pgTable('accounts', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  // Durable registry credentials, envelope-encrypted (crypto/envelope.ts).
  regCredsEnc: text('reg_creds_enc'),
  // When they were last saved: the one thing about them the dashboard shows.
  regCredsSetAt: timestamp('reg_creds_set_at', { withTimezone: true }),
  onUnmappedErrorDefault: integer('on_unmapped_error_default').notNull().default(0),
  // Bumped when a duplicate reactivates an `error` submission: the worker drops the
  // account's cached registry session when it sees a new value.
  sessionEpoch: integer('session_epoch').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
