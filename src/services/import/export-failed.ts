import { sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { cellText, serialToIsoDate, type CellValue } from '../../domain/import-cells';
import { COMMITTED_STATES, stateReason } from '../../domain/import-state';
import { CSV_BOM, csvLine } from '../audit/csv';
import { nameLeftOut } from './left-out';
import type { ChunkSink, ExportFile } from '../export/file';
import { formatDate } from '../export/format';
import { writeXlsx } from '../export/xlsx-writer';
import { assertComplete, loadBatch, type LoadedBatch } from './batch';
import { refreshDerived, type Derivation } from './freshness';
import { readRows, stagedRowsAt } from './rows';
import { inStates, rowOutcomePages } from './states';

export const FAILED_FORMATS = ['csv', 'xlsx'] as const;
export type FailedFormat = (typeof FAILED_FORMATS)[number];

const PAGE = 500;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A row left out: where it was in the file, its state and why, and its cells as uploaded. */
interface FailedRow {
  rowIndex: number;
  sheet: string;
  line: number | null;
  state: string;
  reason: string;
  cells: CellValue[];
}

/**
 * A cell as the export writes it: as uploaded, except a date serial in the column mapped to
 * `dataPrestatie`, which becomes `dd.mm.yyyy` (readable in the file, and read back to the
 * same date by the importer).
 */
function exportedCell(value: CellValue | undefined, column: number, batch: LoadedBatch): CellValue {
  if (value === undefined) return null;
  if (typeof value === 'number' && column === batch.mappingState.mapping.dataPrestatie) {
    const iso = serialToIsoDate(value, batch.fileMeta.date1904);
    if (iso) return formatDate(iso);
  }
  return value;
}

/**
 * Hands `body` the batch and the rows not committed, page by page from a cursor, in one
 * repeatable-read transaction (one consistent view of the batch, however slowly the client
 * reads; the batch is not locked meanwhile). Before commit: the rows a commit would leave out;
 * after it: the rows that were not stored.
 */
async function withFailedRows(
  ctx: AppContext,
  accountId: number,
  batchId: number,
  derivation: Derivation,
  body: (batch: LoadedBatch, pages: AsyncGenerator<FailedRow[]>) => Promise<void>,
): Promise<void> {
  await ctx.db.transaction(
    async (tx) => {
      const batch = await loadBatch(tx, accountId, batchId);
      const filter = batch.status === 'committed' ? sql`submission_id IS NULL` : sql`NOT (${inStates(COMMITTED_STATES)})`;
      async function* pages(): AsyncGenerator<FailedRow[]> {
        for await (const outcomes of rowOutcomePages(tx, accountId, batch.id, filter, PAGE)) {
          const byIndex = new Map((await nameLeftOut(ctx, accountId, outcomes)).map((o) => [o.rowIndex, o]));
          const rows: FailedRow[] = [];
          const staged = await stagedRowsAt(tx, ctx.keyring, batch.id, [...byIndex.keys()]);
          for (const reading of await readRows(staged, batch, derivation.resolution, derivation.now, ctx.keyring)) {
            const outcome = byIndex.get(reading.rowIndex)!;
            rows.push({
              rowIndex: reading.rowIndex,
              sheet: reading.sheet ?? '',
              line: reading.line,
              state: outcome.state,
              reason: stateReason(outcome, reading.verdict.motiv) ?? '',
              cells: batch.header.map((_, c) => exportedCell(reading.cells[c], c, batch)),
            });
          }
          yield rows;
        }
      }
      await body(batch, pages());
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** CSV: where each row was, its state and why, then the file's own columns (csv.ts: the form a Romanian Excel opens, formulas neutralised). */
async function writeCsv(write: ChunkSink, batch: LoadedBatch, pages: AsyncGenerator<FailedRow[]>): Promise<void> {
  await write(CSV_BOM + csvLine(['rand', 'foaie', 'linie', 'stare', 'motiv', ...batch.header]));
  for await (const rows of pages) {
    await write(rows.map((r) => csvLine([r.rowIndex, r.sheet, r.line, r.state, r.reason, ...r.cells.map((c) => cellText(c))])).join(''));
  }
}

/** The columns the xlsx adds after the file's own. */
export const XLSX_EXTRA_COLUMNS = ['motiv', 'stare', 'rand', 'foaie', 'linie'] as const;

/**
 * xlsx: the file's own columns first, in their places and under their names (so a re-upload
 * is read with the same column mapping), then why each row was left out and where it was.
 * Cells are inline strings, never formulas (xlsx-writer.ts), so they need no neutralising.
 */
async function writeFailedXlsx(write: ChunkSink, batch: LoadedBatch, pages: AsyncGenerator<FailedRow[]>): Promise<void> {
  await writeXlsx(write, { sheetName: 'Netrimise', header: [...batch.header, ...XLSX_EXTRA_COLUMNS] }, async (row) => {
    for await (const rows of pages) {
      for (const r of rows) await row([...r.cells, r.reason, r.state, r.rowIndex, r.sheet, r.line]);
    }
  });
}

/**
 * The rows an import leaves out, as a file to fix and upload again. The batch is checked
 * (404 for another account's, 409 while staging or failed) and its derived states brought up
 * to date now, under its lock; the file itself is produced when the transport streams it.
 */
export async function exportFailedRows({ ctx, actor, batchId, format }: { ctx: AppContext; actor: Actor; batchId: number; format: FailedFormat }): Promise<ExportFile> {
  const { accountId } = actor;
  const derivation = await withTransaction(ctx, undefined, async (tx) => {
    const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
    assertComplete(batch);
    return refreshDerived(ctx, tx, batch);
  });
  const writeFile = format === 'xlsx' ? writeFailedXlsx : writeCsv;
  return {
    contentType: format === 'xlsx' ? XLSX_TYPE : 'text/csv; charset=utf-8',
    filename: `import-${batchId}-netrimise.${format}`,
    produce: (write) => withFailedRows(ctx, accountId, batchId, derivation, (batch, pages) => writeFile(write, batch, pages)),
  };
}
