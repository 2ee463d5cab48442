import { sql } from 'drizzle-orm';
import { DEFAULT_ACCOUNT_ID } from '../../src/domain/accounts';
import type { SubmissionStatus } from '../../src/domain/statuses';
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const submissions = pgTable(
  'submissions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    // NULL for rows stored before account scoping; read the account from scopeAccountId.
    accountId: integer('account_id'),
    // The spec's scope rule, once: the account a row belongs to, NULL counting as
    // DEFAULT_ACCOUNT_ID. Every scoped query and index reads this column, never account_id.
    scopeAccountId: integer('scope_account_id')
      .notNull()
      .generatedAlwaysAs(sql.raw(`coalesce(account_id, ${DEFAULT_ACCOUNT_ID})`)),
    status: text('status').$type<SubmissionStatus>().notNull(),
    // Canonical content (never credentials); internal, never returned.
    payloadJson: jsonb('payload_json').notNull(),
    // Copied out of the canonical content for filtering and export.
    vin: text('vin').notNull(),
    nrInm: text('nr_inm').notNull(),
    dataPrestatie: text('data_prestatie').notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    // Resolved items [{cod_prestatie, denumire, source}] as last classified.
    prestatii: jsonb('prestatii'),
    erori: jsonb('erori'),
    nemapate: jsonb('nemapate'),
    motiv: text('motiv'),
    regError: jsonb('reg_error'),
    regCredsEnc: text('reg_creds_enc'),
    batchId: integer('batch_id'),
    rowIndex: integer('row_index'),
    purgeAfter: timestamp('purge_after', { withTimezone: true }),
    requestId: text('request_id'),
    // Worker bookkeeping.
    workerId: text('worker_id'),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    registryId: text('registry_id'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('submissions_account_idx').on(t.scopeAccountId, t.id),
    index('submissions_status_idx').on(t.status, t.nextAttemptAt),
    // The queue alone, per account in id order: a claim reads it without walking the rows
    // already sent, however many there are.
    index('submissions_queued_idx').on(t.scopeAccountId, t.id).where(sql`${t.status} = 'queued'`),
    index('submissions_batch_idx').on(t.batchId),
    index('submissions_vin_idx').on(t.vin),
    // A vehicle's page (/vehicul/{VIN}): one account's records of one VIN in date order, from
    // the index alone to the rows themselves, however many other accounts serviced the VIN.
    index('submissions_account_vin_idx').on(t.scopeAccountId, t.vin, t.dataPrestatie, t.id),
    // The dashboard: a search by plate, and the "De rezolvat" view (what waits for the
    // workshop, oldest first) without walking the rows already sent.
    index('submissions_nr_inm_idx').on(t.nrInm),
    index('submissions_to_resolve_idx').on(t.scopeAccountId, t.id).where(sql`${t.status} IN ('needs_data', 'needs_mapping', 'error')`),
    // The dashboard's counts per state (every poll), from the index alone.
    index('submissions_account_status_idx').on(t.scopeAccountId, t.status),
    // The banners of every signed-in page (services/accounts/alerts.ts): how many of an account's
    // submissions wait for credentials or failed at the registry's login, counted from the index.
    index('submissions_account_reg_cause_idx').on(t.scopeAccountId, t.status, sql`(${t.regError} ->> 'cod')`).where(sql`${t.regError} IS NOT NULL`),
    // "De rezolvat" as it is now (domain/statuses.ts isToResolve): the held states plus the
    // queued rows waiting for registry credentials.
    index('submissions_resolve_idx')
      .on(t.scopeAccountId, t.id)
      .where(sql`${t.status} IN ('needs_data', 'needs_mapping', 'error') OR (${t.status} = 'queued' AND ${t.regError}->>'cod' = 'REG_CREDENTIALE_LIPSA')`),
    // A search by any part of a plate or VIN (ILIKE '%term%'): trigrams, so that a substring
    // does not read every row of the account (the pg_trgm extension comes with migration 0012).
    index('submissions_vin_trgm_idx').using('gin', sql`${t.vin} gin_trgm_ops`),
    index('submissions_nr_inm_trgm_idx').using('gin', sql`${t.nrInm} gin_trgm_ops`),
  ],
);
