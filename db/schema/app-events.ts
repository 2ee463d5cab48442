import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const appEvents = pgTable(
  'app_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    ts: timestamp('ts', { withTimezone: true }).notNull().defaultNow(),
    level: text('level').notNull().default('info'),
    event: text('event').notNull(),
    requestId: text('request_id'),
    accountId: integer('account_id'),
    submissionId: bigint('submission_id', { mode: 'number' }),
    // Already redacted by journal/redact.ts before it gets here.
    data: jsonb('data'),
  },
  (t) => [
    index('app_events_ts_idx').on(t.ts),
    index('app_events_account_idx').on(t.accountId, t.id),
    // The dashboard's journal: one event type of an account, and a request's trail.
    index('app_events_account_event_idx').on(t.accountId, t.event, t.id),
    index('app_events_request_idx').on(t.requestId),
  ],
);
