import { AppError } from '../../errors';
import { isBlank, type CellValue } from '../../domain/import-cells';
import { classifyLeadingRow, headerCells, headerSignature } from '../../domain/import-header';
import { SAMPLE_ROWS } from '../../domain/registry-code-column';
import { MAX_HEADER_CHARS, type SheetInfo, type SheetRow, type Spreadsheet } from '../../readers/types';

export interface SheetSummary {
  name: string;
  hidden: boolean;
  /** Non-blank data rows (below the header). */
  rows: number;
  header_line: number | null;
  staged: boolean;
  motiv: string | null;
}

/** A data row to stage, with the sheet it came from. */
interface WalkRow extends SheetRow {
  sheet: string;
}

/** The header of the first staged sheet, once the walk has met it. */
interface StagedHeader {
  sheet: string;
  header: string[];
  signature: string;
}

/**
 * Which sheets a walk stages. Chosen by name: exactly those, and they must share a header.
 * By default: the first visible sheet with a header, and every later visible sheet whose
 * header is the same (a workbook with one sheet per month).
 */
function wantsSheet(sheet: SheetInfo, chosen: readonly string[], staged: StagedHeader | null, signature: string): { stage: boolean; motiv: string | null } {
  const explicit = chosen.length > 0;
  if (explicit && !chosen.includes(sheet.name)) return { stage: false, motiv: 'Foaia nu a fost aleasă.' };
  if (staged !== null && signature !== staged.signature) {
    if (explicit) throw new AppError('IMPORT_FOAIE', `Foaia „${sheet.name}” are alt antet decât prima foaie aleasă.`);
    return { stage: false, motiv: 'Antetul diferă de cel al primei foi importate.' };
  }
  if (!explicit && sheet.hidden) return { stage: false, motiv: 'Foaie ascunsă; alegeți-o explicit pentru a o importa.' };
  return { stage: true, motiv: null };
}

/**
 * The rows of the staged sheets, in order. The staged header is recorded in `found` when met,
 * before any row under it, and `summaries` are filled as the walk goes, so each row is yielded
 * as the reader gave it (no wrapper per row: this runs for every row of an upload).
 */
async function* walkSheets(source: Spreadsheet, chosen: readonly string[], summaries: SheetSummary[], found: { header: StagedHeader | null }): AsyncGenerator<WalkRow, void> {
  for (const sheet of source.sheets) {
    const summary: SheetSummary = { name: sheet.name, hidden: sheet.hidden, rows: 0, header_line: null, staged: false, motiv: null };
    summaries.push(summary);
    let reading: 'leading' | 'no_header' | 'rows' = 'leading';
    for await (const row of source.rows(sheet.name)) {
      if (row.cells.every(isBlank)) continue;
      if (reading === 'leading') {
        const kind = classifyLeadingRow(row.cells);
        if (kind === 'title') continue;
        if (kind === 'data') {
          reading = 'no_header';
          summary.motiv = 'Foaia nu are rând de antet.';
          if (chosen.includes(sheet.name))
            throw new AppError('IMPORT_FARA_ANTET', `Primul rând completat al foii „${sheet.name}” (linia ${row.line}) conține date, nu nume de coloane.`);
          summary.rows += 1;
          continue;
        }
        const header = headerCells(row.cells);
        const chars = header.reduce((sum, label) => sum + label.length, 0);
        if (chars > MAX_HEADER_CHARS) {
          const max = MAX_HEADER_CHARS.toLocaleString('ro-RO');
          throw new AppError(
            'IMPORT_CELULA_PREA_LUNGA',
            `Antetul foii „${sheet.name}” (linia ${row.line}) are ${chars.toLocaleString('ro-RO')} de caractere în total (cel mult ${max}).`,
          );
        }
        const signature = headerSignature(header);
        const decision = wantsSheet(sheet, chosen, found.header, signature);
        summary.header_line = row.line;
        summary.staged = decision.stage;
        summary.motiv = decision.motiv;
        if (decision.stage) found.header ??= { sheet: sheet.name, header, signature };
        reading = 'rows';
        continue;
      }
      summary.rows += 1;
      if (summary.staged) yield { line: row.line, cells: row.cells, sheet: sheet.name };
    }
  }
}

interface FileStart {
  header: string[];
  signature: string;
  /** The first rows under the header (up to SAMPLE_ROWS, of its sheet): the mapping is judged on their values too. */
  sample: ReadonlyArray<readonly CellValue[]>;
}

/**
 * The uploaded file read as the rows to stage, pulled one at a time, so that its staging can
 * stop between two rows (its first rows committed) and go on later, in another transaction.
 */
export function walkFile(source: Spreadsheet, chosen: readonly string[]) {
  const summaries: SheetSummary[] = [];
  const found: { header: StagedHeader | null } = { header: null };
  const rows = walkSheets(source, chosen, summaries, found);
  // Rows read ahead (the sample, a look for more) and not yet handed out.
  const ahead: WalkRow[] = [];
  const pull = async (): Promise<WalkRow | null> => {
    const next = await rows.next();
    return next.done ? null : next.value;
  };
  return {
    summaries,
    /** The staged header and its sample, or null when no sheet has a header to stage (the whole file then read). */
    async start(): Promise<FileStart | null> {
      const first = await pull();
      const staged = found.header;
      if (!staged) return null;
      const sample: Array<readonly CellValue[]> = [];
      for (let row = first; row; row = sample.length < SAMPLE_ROWS ? await pull() : null) {
        ahead.push(row);
        if (row.sheet !== staged.sheet) break;
        sample.push(row.cells);
      }
      return { header: staged.header, signature: staged.signature, sample };
    },
    /** The next row to stage (`done` at the end): the generator's own promise, no extra step per row. */
    next(): Promise<IteratorResult<WalkRow, void>> | IteratorResult<WalkRow, void> {
      return ahead.length > 0 ? { value: ahead.shift()!, done: false } : rows.next();
    },
    /** Whether another row is left to stage (read ahead, still handed out by `next`). */
    async more(): Promise<boolean> {
      if (ahead.length > 0) return true;
      const row = await pull();
      if (row) ahead.push(row);
      return row !== null;
    },
    /** Stops reading (the reader's streams are closed). */
    async close(): Promise<void> {
      await rows.return(undefined);
    },
  };
}
export type FileWalk = ReturnType<typeof walkFile>;

/** Why nothing was staged: an empty file, a header without rows, or data without a header. */
export function nothingStaged(summaries: readonly SheetSummary[], headerFound: boolean): AppError {
  if (headerFound) return new AppError('IMPORT_FISIER_GOL', 'Fișierul are antet, dar niciun rând de date sub el.');
  if (summaries.some((s) => s.rows > 0 && s.header_line === null)) {
    return new AppError('IMPORT_FARA_ANTET', 'Primul rând completat conține date, nu nume de coloane.');
  }
  return new AppError('IMPORT_FISIER_GOL', 'Fișierul nu conține niciun rând completat.');
}
