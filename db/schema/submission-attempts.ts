import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { submissions } from './submissions';

// One row per delivery attempt, so support can answer "what happened to this record".
export const submissionAttempts = pgTable(
  'submission_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    submissionId: bigint('submission_id', { mode: 'number' })
      .notNull()
      .references(() => submissions.id, { onDelete: 'cascade' }),
    attemptNo: integer('attempt_no').notNull(),
    workerId: text('worker_id'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    httpStatus: integer('http_status'),
    outcome: text('outcome'),
    registryId: text('registry_id'),
    errorCode: text('error_code'),
    // Duration of the registry call of this attempt (migration 0001_worker).
    latencyMs: integer('latency_ms'),
    // The submission's state after this attempt: sent, error or queued (migration 0001_worker).
    resultStatus: text('result_status'),
  },
  (t) => [index('submission_attempts_submission_idx').on(t.submissionId)],
);
