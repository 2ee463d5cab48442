import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The master keys the database's ciphertext is under, by key id (crypto/envelope.ts): a process
 * whose keyring lacks one of them refuses to start (src/crypto/master-keys.ts) instead of
 * running beside data it cannot read. A process records its current key before it writes;
 * `npm run rotate-key` removes a key once nothing is encrypted under it.
 */
export const masterKeys = pgTable('master_keys', {
  keyId: text('key_id').primaryKey(),
  recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
});
