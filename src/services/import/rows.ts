import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Keyring } from '../../crypto/envelope';
import { classify, type Classification } from '../../domain/classify';
import type { CellValue } from '../../domain/import-cells';
import type { ColumnMapping } from '../../domain/import-header';
import { applyOverride, mappedValues, readOverride, storableValues, toSubmissionInput, type FieldValues } from '../../domain/import-row';
import { idempotencyKeys } from '../../domain/idempotency';
import { nonServiceReason } from '../../domain/non-service';
import type { ResolutionContext } from '../../domain/resolve';
import type { LoadedBatch } from './batch';
import type { StoredFacts } from './facts';
import { readSealed, withRaw, type RawRow } from './raw-blocks';

/** A row as `import_rows` holds it, with its raw cells read (raw-blocks.ts). */
export type StagedRow = {
  row_index: number;
  sheet: string | null;
  raw: RawRow;
  override_json: string | null;
  include_review: number;
  /** bigint: postgres.js hands it over as a string. */
  submission_id: string | number | null;
};
type Stored = Omit<StagedRow, 'raw'> & { raw_enc: string | null };

const CHUNK = 2000;

/**
 * The batch's rows in order (those matching `where`, over the columns of `import_rows`), a
 * chunk at a time (keyset pages), so a large batch is never loaded whole.
 */
export async function* stagedRows(exec: Executor, keyring: Keyring, batchId: number, where: SQL = sql`true`): AsyncGenerator<Array<StagedRow & StoredFacts>> {
  let after = 0;
  for (;;) {
    const rows = await exec.execute<Stored & StoredFacts>(sql`
      SELECT row_index, sheet, raw_enc, override_json, include_review, submission_id,
        verdict, idem_key, legacy_key, codes, unmapped, data_prestatie, odometru_final, client_codes, rule_bound, vin_hmac, visit_key, plate_hmac, plate_missing, left_out
      FROM import_rows
      WHERE batch_id = ${batchId} AND row_index > ${after} AND (${where}) ORDER BY row_index LIMIT ${CHUNK}`);
    if (rows.length === 0) return;
    yield await withRaw(exec, keyring, batchId, rows);
    after = rows[rows.length - 1]!.row_index;
  }
}

export async function stagedRowsAt(exec: Executor, keyring: Keyring, batchId: number, indexes: readonly number[]): Promise<StagedRow[]> {
  if (indexes.length === 0) return [];
  const rows = await exec.execute<Stored>(sql`
    SELECT row_index, sheet, raw_enc, override_json, include_review, submission_id FROM import_rows
    WHERE batch_id = ${batchId} AND row_index = ANY(string_to_array(${indexes.join(',')}, ',')::int[])
    ORDER BY row_index`);
  return withRaw(exec, keyring, batchId, rows);
}

/** A staged row read back: its cells, the user's edits, and the API's verdict on the result. */
export interface RowReading {
  rowIndex: number;
  sheet: string | null;
  line: number | null;
  cells: CellValue[];
  overridden: string[];
  values: FieldValues;
  verdict: RowVerdict;
  /** Why the line is no service (domain/non-service.ts), or null. */
  leftOut: string | null;
  key: string;
  legacyKey: string;
  includeReview: boolean;
  submissionId: number | null;
}

export type RowVerdict = Classification & { status: 'queued' | 'needs_data' | 'needs_mapping' };

/** How a batch reads its rows: the column mapping, the file's date system, the account, and the header (a line repeating it is no service). */
export interface RowSetting {
  accountId: number;
  mapping: ColumnMapping;
  date1904: boolean;
  header: readonly string[];
}

export const rowSetting = (batch: LoadedBatch): RowSetting => ({
  accountId: batch.accountId,
  mapping: batch.mappingState.mapping,
  date1904: batch.fileMeta.date1904,
  header: batch.header,
});

/**
 * One row through the API's own path: file columns → canonical fields, the user's override
 * applied last, then `classify` (canonicalise, validate, resolve) and the idempotency key.
 */
export function classifyCells(cells: readonly CellValue[], override: FieldValues, setting: RowSetting, resolution: ResolutionContext, now: Date) {
  const { values, erori: found } = storableValues(applyOverride(mappedValues(cells, setting.mapping), override), setting.mapping);
  const input = toSubmissionInput(values, { date1904: setting.date1904 });
  const verdict = classify(input, resolution, { rejectUnmapped: false, now, found }) as RowVerdict;
  const leftOut = nonServiceReason(cells, values, setting.header, setting.mapping, setting.date1904);
  return { values, verdict, leftOut, ...idempotencyKeys(setting.accountId, verdict.content) };
}

/** A staged row decrypted and classified (a page of the preview, the commit, the export). */
export function readRow(staged: StagedRow, batch: LoadedBatch, resolution: ResolutionContext, now: Date, keyring: Keyring): RowReading {
  const { line, cells } = staged.raw;
  const override = readOverride(staged.override_json ? readSealed(keyring, staged.override_json) : null);
  const { values, verdict, leftOut, key, legacyKey } = classifyCells(cells, override, rowSetting(batch), resolution, now);
  return {
    rowIndex: staged.row_index,
    sheet: staged.sheet,
    line,
    cells,
    overridden: Object.keys(override),
    values,
    verdict,
    leftOut,
    key,
    legacyKey,
    includeReview: staged.include_review !== 0,
    submissionId: staged.submission_id === null ? null : Number(staged.submission_id),
  };
}

/**
 * How long rows are read (readRow) in one turn of the event loop, at most (a row takes longer
 * only alone): a page of 1,000 rows at their bounds was classified in one go, tens of
 * milliseconds during which no other account's request moved (bench:abuse, attack 2).
 */
const TURN_MS = 2;

/** Rows read (readRow) in order, in turns of the event loop of about TURN_MS each (`clock`: milliseconds, for tests). */
export async function readRows(
  staged: readonly StagedRow[],
  batch: LoadedBatch,
  resolution: ResolutionContext,
  now: Date,
  keyring: Keyring,
  clock: () => number = performance.now.bind(performance),
): Promise<RowReading[]> {
  const readings: RowReading[] = [];
  let turn = clock();
  for (const row of staged) {
    if (clock() - turn > TURN_MS) {
      await nextTurn();
      turn = clock();
    }
    readings.push(readRow(row, batch, resolution, now, keyring));
  }
  return readings;
}
