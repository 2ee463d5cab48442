import type { DbfInfo } from '../../readers/types';
import { AppError } from '../../errors';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import type { ImportBatchStatus } from '../../domain/import-state';
import { readColumnMapping, type ColumnMapping, type HeaderDrift } from '../../domain/import-header';
import { NotFoundError } from '../../errors';
import { RETENTION_DAYS } from '../submissions/retention';
import type { Actor, AppContext } from '../../context';
import { readStagingFailure, type StagingFailure } from './staging-failure';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Staged import data is purged (by the worker) 90 days after upload. */
export function importPurgeAfter(now: Date): Date {
  return new Date(now.getTime() + RETENTION_DAYS * DAY_MS);
}

export type MappingSource = 'saved' | 'suggested';

/** What `import_batches.column_mapping` holds: the batch's current mapping and where it came from. */
export interface MappingState {
  mapping: ColumnMapping;
  source: MappingSource;
  drift: HeaderDrift | null;
  /** What the upload decided from the column's values (registry-code-column.ts); absent once the mapping is set by hand. */
  observatii?: string[];
}

export interface FileMeta {
  kind: 'xlsx' | 'csv' | 'dbf';
  encoding: string | null;
  delimiter: string | null;
  date1904: boolean;
  size: number;
  /** dbf only: how the table was read (code page and where from, deleted records left out, memo). */
  dbf?: DbfInfo;
}

export interface LoadedBatch {
  id: number;
  accountId: number;
  status: ImportBatchStatus;
  filename: string | null;
  header: string[];
  headerSignature: string;
  sheets: unknown;
  mappingState: MappingState;
  fileMeta: FileMeta;
  rowCount: number;
  committedAt: Date | null;
  purgeAfter: Date | null;
  createdAt: Date;
  /** What the rows' derived columns were computed against (fingerprint.ts). */
  derivedFp: unknown;
  vinKeyEnc: string | null;
  /** Why its staging failed: set when the status is `failed`. */
  error: StagingFailure | null;
}

function readMappingState(stored: unknown, width: number): MappingState {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  return {
    mapping: readColumnMapping(s.mapping, width),
    source: s.source === 'saved' ? 'saved' : 'suggested',
    drift: (s.drift as HeaderDrift | null | undefined) ?? null,
    ...(Array.isArray(s.observatii) ? { observatii: s.observatii.map(String) } : {}),
  };
}

function readFileMeta(stored: unknown): FileMeta {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  return {
    kind: s.kind === 'csv' || s.kind === 'dbf' ? s.kind : 'xlsx',
    encoding: typeof s.encoding === 'string' ? s.encoding : null,
    delimiter: typeof s.delimiter === 'string' ? s.delimiter : null,
    date1904: s.date1904 === true,
    size: typeof s.size === 'number' ? s.size : 0,
    ...(s.dbf && typeof s.dbf === 'object' ? { dbf: s.dbf as DbfInfo } : {}),
  };
}

/**
 * The batch if it belongs to the account. Another account's batch and a missing one are the
 * same NotFoundError, so the 404s cannot be told apart. `forUpdate` serialises edits and commit.
 */
export async function loadBatch(exec: Executor, accountId: number, batchId: number, options: { forUpdate?: boolean } = {}): Promise<LoadedBatch> {
  const query = exec
    .select()
    .from(importBatches)
    .where(and(eq(importBatches.id, batchId), eq(importBatches.accountId, accountId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError();
  const header = Array.isArray(row.header) ? row.header.map((h) => String(h ?? '')) : [];
  return {
    id: row.id,
    accountId: row.accountId,
    status: row.status,
    filename: row.filename,
    header,
    headerSignature: row.headerSignature,
    sheets: row.sheets,
    mappingState: readMappingState(row.columnMapping, header.length),
    fileMeta: readFileMeta(row.fileMeta),
    rowCount: row.rowCount,
    committedAt: row.committedAt,
    purgeAfter: row.purgeAfter,
    createdAt: row.createdAt,
    derivedFp: row.derivedFp,
    vinKeyEnc: row.vinKeyEnc,
    error: row.status === 'failed' ? readStagingFailure(row.error) : null,
  };
}

/** The batch as an API read gets it (NotFoundError for another account's). */
export const getImportBatch = ({ ctx, actor, batchId }: { ctx: AppContext; actor: Actor; batchId: number }) => loadBatch(ctx.db, actor.accountId, batchId);

/** The file is waiting for a stager, or being staged. */
export const isUnstaged = (batch: Pick<LoadedBatch, 'status'>) => batch.status === 'queued' || batch.status === 'staging';

/** Every row of the file is staged: not `queued` or `staging`, nor `failed` (its rows were removed). */
export const hasAllRows = (batch: Pick<LoadedBatch, 'status'>) => !isUnstaged(batch) && batch.status !== 'failed';

/** 409 unless the batch has all its rows (hasAllRows). */
export function assertComplete(batch: Pick<LoadedBatch, 'id' | 'status' | 'rowCount' | 'error'>): void {
  if (hasAllRows(batch)) return;
  if (batch.status === 'queued') throw new AppError('IMPORT_IN_CURS', `Importul ${batch.id} așteaptă să fie încărcat.`);
  if (batch.status === 'staging') {
    throw new AppError('IMPORT_IN_CURS', `Importul ${batch.id} are ${batch.rowCount} rânduri încărcate până acum; restul fișierului se încarcă.`);
  }
  const failure = batch.error ?? readStagingFailure(null);
  throw new AppError('IMPORT_ESUAT', `Importul ${batch.id} nu a putut fi încărcat (${failure.cod}: ${failure.cauza}).`);
}

/** The batch can still change: complete, and not committed. 409 otherwise. */
export function assertStaged(batch: Pick<LoadedBatch, 'id' | 'status' | 'rowCount' | 'error' | 'committedAt'>): void {
  assertComplete(batch);
  if (batch.status === 'committed') {
    throw new AppError('IMPORT_DEJA_CONFIRMAT', `Importul a fost confirmat la ${batch.committedAt?.toISOString() ?? 'o dată anterioară'}.`);
  }
}
