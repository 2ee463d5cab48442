import { inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { recordset, type RecordsetSpec } from '../../../db/recordset';
import { submissions } from '../../../db/schema';
import type { CanonicalContent } from '../../domain/canonical';
import type { Classification, Verdict } from '../../domain/classify';
import type { SubmissionStatus } from '../../domain/statuses';
import type { RegError } from '../../errors';
import { purgeAfterFor } from './retention';

// The one owner of a submission's row: how a verdict becomes its columns, how a new one is
// inserted, how held ones are classified again, and what a requeue resets. The API's post, the
// import's commit, the correction, the re-resolution after a mapping, the requeues and the
// worker's outcomes all write through here, so a column added to a verdict reaches every path.

type Row = typeof submissions.$inferSelect;
type Columns<K extends keyof Row> = { [C in K]: Row[C] };
/** What a write may change: any column but the id. */
export type SubmissionChanges = Partial<Omit<typeof submissions.$inferInsert, 'id'>>;

/** The columns a classification decides (purge_after follows from the status). */
export const VERDICT_COLUMNS = ['status', 'prestatii', 'erori', 'nemapate', 'motiv', 'purgeAfter'] as const;
export type VerdictColumns = Columns<(typeof VERDICT_COLUMNS)[number]>;
/** The verdict's own columns, those a re-resolution compares to decide whether a row changed. */
const CLASSIFIED_COLUMNS = VERDICT_COLUMNS.filter((c) => c !== 'purgeAfter');

/** A verdict as stored where nothing is rejected: `error` (codes without a mapping) waits as `needs_mapping`. */
export type StoredVerdict = Exclude<Verdict, 'error'>;
export const storedStatus = (status: Verdict): StoredVerdict => (status === 'error' ? 'needs_mapping' : status);

/** The one translation of a classification into the row's columns. */
export function verdictColumns(
  verdict: Pick<Classification, 'status' | 'prestatii' | 'erori' | 'nemapate' | 'motiv'>,
  now: Date,
  status: StoredVerdict = storedStatus(verdict.status),
): VerdictColumns {
  return { status, prestatii: verdict.prestatii, erori: verdict.erori, nemapate: verdict.nemapate, motiv: verdict.motiv, purgeAfter: purgeAfterFor(status, now) };
}

/** The columns copied out of the canonical content, with the idempotency key computed from it. */
export const CONTENT_COLUMNS = ['payloadJson', 'vin', 'nrInm', 'dataPrestatie', 'idempotencyKey'] as const;
export type ContentColumns = Columns<(typeof CONTENT_COLUMNS)[number]>;

export function contentColumns(content: CanonicalContent, key: string): ContentColumns {
  return { payloadJson: content, vin: content.vin, nrInm: content.nrInm, dataPrestatie: content.dataPrestatie, idempotencyKey: key };
}

/** What every requeue resets: back in the queue now, its attempts counted again, nothing to purge. */
export const REQUEUED = { status: 'queued', purgeAfter: null, attempts: 0, nextAttemptAt: null, workerId: null } as const satisfies SubmissionChanges;
/** What a changed content resets besides: the registry's answer was about the old one. */
export const DELIVERY_RESET = { regError: null, attempts: 0, nextAttemptAt: null, workerId: null } as const satisfies SubmissionChanges;

/** A held row's requeue: the verdict that lets it go (a `queued` one), and the requeue's reset. */
export function requeuedColumns(verdict: Parameters<typeof verdictColumns>[0], now: Date): SubmissionChanges {
  return { ...verdictColumns(verdict, now), ...REQUEUED };
}

/** Writes `changes` to the submissions `ids`, with their update time. */
export async function updateSubmissions(tx: Executor, ids: readonly number[], changes: SubmissionChanges): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(submissions)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(inArray(submissions.id, [...ids]));
}

/** A recordset spec (db/recordset.ts) for these columns of `submissions`, their SQL types the table's. */
export const submissionColumns = <K extends keyof Row>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, submissions[k]])) as unknown as RecordsetSpec<Columns<K>>;
const name = (key: keyof Row, alias?: string) => sql.raw(`${alias ? `${alias}.` : ''}"${submissions[key].name}"`);
const list = (parts: SQL[]) => sql.join(parts, sql`, `);

// The API's post (insert-batcher.ts): many requests' rows in one statement.
const POSTED_COLUMNS = ['accountId', ...CONTENT_COLUMNS, ...VERDICT_COLUMNS, 'regCredsEnc', 'requestId'] as const;
/** A submission posted to the API, with the older form of its key (rows stored before account scoping). */
export type PostedSubmission = Columns<(typeof POSTED_COLUMNS)[number]> & { accountId: number; legacyKey: string };
const posted = recordset<PostedSubmission>({ ...submissionColumns(POSTED_COLUMNS), accountId: submissions.accountId, legacyKey: 'text' });
export const postedRows = {
  from: (rows: readonly PostedSubmission[]) => posted.from(rows, 'x'),
  field: (alias: string, key: keyof PostedSubmission & string) => posted.field(alias, key),
  /** `INSERT INTO submissions (<columns>) SELECT <fields of i>` for every stored column of a posted row (built once: the post is hot). */
  insertFromI: sql`INSERT INTO submissions (${list(POSTED_COLUMNS.map((k) => name(k)))}) SELECT ${list(POSTED_COLUMNS.map((k) => posted.field('i', k)))}`,
};

// The import's commit: a chunk of file rows in one statement, read from one JSON text (the
// same statement built by drizzle's insert spends most of the commit binding each value).
const IMPORTED_COLUMNS = ['accountId', 'batchId', 'rowIndex', 'requestId', 'createdAt', 'updatedAt', ...CONTENT_COLUMNS, ...VERDICT_COLUMNS] as const;
/** A row of an import's commit: where it came from, its content and its verdict. */
export type ImportedSubmission = Columns<(typeof IMPORTED_COLUMNS)[number]>;
const imported = recordset<ImportedSubmission>(submissionColumns(IMPORTED_COLUMNS));

/** Inserts an import's rows, in row order; a key already taken (a concurrent post of the same content) is skipped. */
export async function insertImported(tx: Executor, rows: ImportedSubmission[]): Promise<Array<{ id: number; rowIndex: number; status: SubmissionStatus }>> {
  if (rows.length === 0) return [];
  const inserted = await tx.execute<{ id: string | number; row_index: number; status: SubmissionStatus }>(sql`
    INSERT INTO submissions (${list(IMPORTED_COLUMNS.map((k) => name(k)))})
    SELECT ${list(IMPORTED_COLUMNS.map((k) => imported.field('x', k)))} FROM ${imported.from(rows, 'x')}
    ORDER BY ${imported.field('x', 'rowIndex')}
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id, row_index, status`);
  return inserted.map((r) => ({ id: Number(r.id), rowIndex: r.row_index, status: r.status }));
}

type Reverdict = { id: number } & VerdictColumns;
const reverdicts = recordset<Reverdict>({ id: submissions.id, ...submissionColumns(VERDICT_COLUMNS) });

/** Stores new verdicts of held rows in one statement; only rows whose classification changed are written. */
export async function rewriteVerdicts(tx: Executor, rows: Reverdict[]): Promise<void> {
  if (rows.length === 0) return;
  const field = (k: keyof Reverdict & string) => reverdicts.field('v', k);
  await tx.execute(sql`
    UPDATE submissions s SET ${list(VERDICT_COLUMNS.map((k) => sql`${name(k)} = ${field(k)}`))}, updated_at = now()
    FROM ${reverdicts.from(rows, 'v')}
    WHERE s.id = ${field('id')}
      AND (${list(CLASSIFIED_COLUMNS.map((k) => name(k, 's')))}) IS DISTINCT FROM (${list(CLASSIFIED_COLUMNS.map(field))})`);
}

/** What a finished delivery attempt decides: sent, refused for good, or back in the queue (a retry, a wait). */
export type Delivery = { status: 'sent'; registryId: string } | { status: 'error'; regError: RegError } | { status: 'queued'; regError: RegError | null };
export const DELIVERY_COLUMNS = ['status', 'registryId', 'regError', 'motiv', 'purgeAfter'] as const;
export type DeliveryColumns = Columns<(typeof DELIVERY_COLUMNS)[number]>;

/**
 * A delivery's columns: the registry's error becomes the row's `motiv`; a delivered or refused
 * row is purged after its retention, a queued one never (its purge_after stays as it was).
 */
export function deliveryColumns(delivery: Delivery, now: Date): DeliveryColumns {
  const regError = delivery.status === 'sent' ? null : delivery.regError;
  return {
    status: delivery.status,
    registryId: delivery.status === 'sent' ? delivery.registryId : null,
    regError,
    motiv: regError ? `${regError.problema} ${regError.cauza}`.trim() : null,
    purgeAfter: delivery.status === 'queued' ? null : purgeAfterFor(delivery.status, now),
  };
}
