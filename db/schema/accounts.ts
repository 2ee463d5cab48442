import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const accounts = pgTable(
  'accounts',
  {
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
    // The session_epoch under which the registry refused a login with the durable credentials:
    // while the epoch is still this one (the credentials unchanged), the worker tries no login
    // with them, since a real registry locks an account after a few (worker/login.ts).
    regCredsRefusedEpoch: integer('reg_creds_refused_epoch'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // The workshop's fiscal code, digits only (domain/cui.ts): set by the sign-up, one account
    // per CUI (the unique index); accounts the operator created may have none.
    cui: text('cui'),
  },
  (t) => [uniqueIndex('accounts_cui_idx').on(t.cui)],
);
