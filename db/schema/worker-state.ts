import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// One row per worker process: liveness for /healthz.
export const workerState = pgTable('worker_state', {
  workerId: text('worker_id').primaryKey(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  lastRegistryLogin: timestamp('last_registry_login', { withTimezone: true }),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
});
