import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

// The deployment's rate-limit windows (src/http/window-sync.ts): every server adds its hits
// here, so a limit holds for all of them together. A window starts at its key's first hit
// and lasts `window_ms`; the first hit after it starts the next. Unlogged (its migration): a
// crash only forgets the current windows. Keys are SHA-256 digests, never an address, a key
// or an e-mail.
export const rateWindows = pgTable(
  'rate_windows',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** Milliseconds since the epoch. */
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    windowMs: integer('window_ms').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);
