import { sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context';
import { cellText, isBlank, splitCodes, type CellValue } from '../../domain/import-cells';
import { formatDate } from '../../domain/dates';
import { IMPORT_FIELDS, type ImportField } from '../../domain/import-header';
import { toSubmissionInput } from '../../domain/import-row';
import { MAX_PRESTATII } from '../../domain/submission-input';
import { loadBatch } from './batch';
import { stagedRowsAt } from './rows';

/** How many of the first rows are looked through for sample values. */
const LOOK_AT = 200;
const PER_COLUMN = 3;

/** One value of a column: as the file has it, and as the import reads it for the column's field (null: not read, the column serves no field). */
export interface Sample {
  inFile: string;
  read: string | null;
}

/** What a field's reading of one cell gives, as text (an ISO date stays ISO: the view formats it). */
function readAs(field: ImportField, cell: Parameters<typeof toSubmissionInput>[0][ImportField], date1904: boolean): string {
  const input = toSubmissionInput({ [field]: cell }, { date1904 });
  switch (field) {
    case 'vin':
    case 'nrInm':
      // As canonicalisation will have it: upper-cased, the spaces and dashes of a printed VIN gone.
      return String(input[field] ?? '').toUpperCase();
    case 'dataPrestatie':
      return String(input[field] ?? '');
    case 'odometruInitial':
    case 'odometruFinal':
      return input[field] === null || input[field] === undefined ? '' : String(input[field]);
    case 'denumire_op':
      // A name is read as written; several go with several codes (splitNames), paired then.
      return cellText(cell).trim();
    default:
      return splitCodes(cell, MAX_PRESTATII).join(' · ');
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A cell as the clerk sees it in the file. An xlsx date is a number (its serial, 46328) under a
 * date format: read as a date, it is shown as the spreadsheet shows it (02.11.2026), never as
 * the serial, which the clerk never saw.
 */
function inFileText(cell: CellValue, field: ImportField | undefined, read: string | null): string {
  if (field === 'dataPrestatie' && typeof cell === 'number' && read !== null && ISO_DATE.test(read)) return formatDate(read);
  return cellText(cell);
}

/**
 * Up to three non-blank values per column of the batch's first rows, each "in the file → how
 * we read it" under the current mapping (domain/import-row's own reading: Excel serials and
 * dd.mm.yyyy dates, `154200.0` or `154.200` odometers). Reads the rows only, so a batch still
 * staging has samples as soon as its first part is in.
 */
export async function columnSamples({ ctx, actor, batchId }: { ctx: AppContext; actor: Actor; batchId: number }): Promise<Sample[][]> {
  const { accountId } = actor;
  const batch = await loadBatch(ctx.db, accountId, batchId);
  const indexes = await ctx.db.execute<{ row_index: number }>(sql`
    SELECT row_index FROM import_rows WHERE batch_id = ${batch.id} ORDER BY row_index LIMIT ${LOOK_AT}`);
  const rows = await stagedRowsAt(
    ctx.db,
    ctx.keyring,
    batch.id,
    indexes.map((r) => r.row_index),
  );
  const fieldOf = new Map(IMPORT_FIELDS.flatMap((f) => (batch.mappingState.mapping[f] === undefined ? [] : [[batch.mappingState.mapping[f]!, f] as const])));
  return batch.header.map((_, column) => {
    const field = fieldOf.get(column);
    const samples: Sample[] = [];
    for (const row of rows) {
      const cell = row.raw.cells[column];
      if (cell === undefined || isBlank(cell)) continue;
      const read = field ? readAs(field, cell, batch.fileMeta.date1904) : null;
      samples.push({ inFile: inFileText(cell, field, read), read });
      if (samples.length === PER_COLUMN) break;
    }
    return samples;
  });
}
