import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Keyring } from '../../crypto/envelope';
import { classify, type Classification } from '../../domain/classify';
import type { CellValue } from '../../domain/import-cells';
import { applyOverride, mappedValues, readOverride, toSubmissionInput, type FieldValues } from '../../domain/import-row';
import { idempotencyKey, legacyIdempotencyKey } from '../../domain/idempotency';
import type { ResolutionContext } from '../../domain/resolve';
import type { LoadedBatch } from './batch';

export type StagedRow = {
  row_index: number;
  sheet: string | null;
  raw_enc: string;
  override_json: string | null;
  include_review: number;
  /** bigint: postgres.js hands it over as a string. */
  submission_id: string | number | null;
};

const CHUNK = 2000;

/** The batch's rows in order, a chunk at a time (keyset pages), so a large batch is never loaded whole. */
export async function* stagedRows(exec: Executor, batchId: number): AsyncGenerator<StagedRow[]> {
  let after = 0;
  for (;;) {
    const rows = await exec.execute<StagedRow>(sql`
      SELECT row_index, sheet, raw_enc, override_json, include_review, submission_id FROM import_rows
      WHERE batch_id = ${batchId} AND row_index > ${after} ORDER BY row_index LIMIT ${CHUNK}`);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.row_index;
  }
}

export async function stagedRowsAt(exec: Executor, batchId: number, indexes: readonly number[]): Promise<StagedRow[]> {
  if (indexes.length === 0) return [];
  return exec.execute<StagedRow>(sql`
    SELECT row_index, sheet, raw_enc, override_json, include_review, submission_id FROM import_rows
    WHERE batch_id = ${batchId} AND row_index = ANY(string_to_array(${indexes.join(',')}, ',')::int[])
    ORDER BY row_index`);
}

/** A staged row read back: its cells, the user's edits, and the API's verdict on the result. */
export interface RowReading {
  rowIndex: number;
  sheet: string | null;
  line: number | null;
  cells: CellValue[];
  overridden: string[];
  values: FieldValues;
  verdict: Classification & { status: 'queued' | 'needs_data' | 'needs_mapping' };
  key: string;
  legacyKey: string;
  includeReview: boolean;
  submissionId: number | null;
}

/** Decrypts; anything that does not decrypt or parse reads as empty (never an error). */
function decryptJson(keyring: Keyring, token: string | null): unknown {
  if (!token) return null;
  try {
    return JSON.parse(keyring.decrypt(token));
  } catch {
    return null;
  }
}

function readRaw(stored: unknown): { line: number | null; cells: CellValue[] } {
  const raw = (stored && typeof stored === 'object' ? stored : {}) as { l?: unknown; c?: unknown };
  const cells = Array.isArray(raw.c) ? raw.c.map((c): CellValue => (typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean' ? c : null)) : [];
  return { line: typeof raw.l === 'number' ? raw.l : null, cells };
}

/**
 * One row through the API's own path: file columns → canonical fields, the user's override
 * applied last, then `classify` (canonicalise, validate, resolve) and the idempotency key.
 */
export function readRow(staged: StagedRow, batch: LoadedBatch, resolution: ResolutionContext, now: Date, keyring: Keyring): RowReading {
  const { line, cells } = readRaw(decryptJson(keyring, staged.raw_enc));
  const override = readOverride(decryptJson(keyring, staged.override_json));
  const values = applyOverride(mappedValues(cells, batch.mappingState.mapping), override);
  const input = toSubmissionInput(values, { date1904: batch.fileMeta.date1904 });
  const verdict = classify(input, resolution, { rejectUnmapped: false, now }) as RowReading['verdict'];
  return {
    rowIndex: staged.row_index,
    sheet: staged.sheet,
    line,
    cells,
    overridden: Object.keys(override),
    values,
    verdict,
    key: idempotencyKey(batch.accountId, verdict.content),
    legacyKey: legacyIdempotencyKey(verdict.content),
    includeReview: staged.include_review !== 0,
    submissionId: staged.submission_id === null ? null : Number(staged.submission_id),
  };
}
