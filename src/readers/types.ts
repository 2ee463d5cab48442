import type { CellValue } from '../domain/import-cells';

/** The limits an upload is held to (configured by GATEWAY_IMPORT_* settings). */
export interface ImportLimits {
  /** Data rows staged from one file. */
  maxRows: number;
  /** Sum of the uncompressed sizes of an xlsx's parts, checked before anything is inflated. */
  maxUncompressedBytes: number;
  /** Columns of a row; cells further right make the file refused. */
  maxColumns: number;
  /**
   * Not a limit: the code page a clerk chose for a .dbf table, over its header's. It rides with
   * the limits because every reader of the file gets them (a stager's, from
   * import_uploads.code_page), and must read the table the same way.
   */
  codePage?: number;
}

export interface SheetRow {
  /** 1-based line (row number) in the sheet, as a spreadsheet application shows it. */
  line: number;
  cells: CellValue[];
}

export interface SheetInfo {
  name: string;
  hidden: boolean;
}

/** How a .dbf table was read, for the import screen's "how we read it" and the API's `file`. */
export interface DbfInfo {
  /** The program that wrote it, from the version byte. */
  format: string;
  /** The header's language driver byte (0: it names none). */
  languageDriver: number;
  codePage: number;
  codePageLabel: string;
  /** Where the code page came from: the header, the clerk, or judged on the text (the header names none). */
  codePageFrom: 'antet' | 'ales' | 'text';
  /** Records the header announces, deleted ones included; deleted ones are never read. */
  records: number;
  deleted: number;
  memo: 'dbt' | 'fpt' | null;
  /** Fields of a type with no text (binary, OLE, pictures), left out. */
  skippedFields: string[];
}

/** An opened upload: its sheets, read one at a time as a stream of rows. */
export interface Spreadsheet {
  kind: 'xlsx' | 'csv' | 'dbf';
  /** csv only: the encoding the bytes were read in, and the separator. */
  encoding?: string;
  delimiter?: string;
  /** xlsx only: dates count from 1904 (workbooks from old Mac Excel). */
  date1904: boolean;
  /** dbf only: how the table was read. */
  dbf?: DbfInfo;
  sheets: SheetInfo[];
  rows(sheet: string): AsyncIterable<SheetRow>;
}

/** A cell's text at most: Excel's own limit, so no file a spreadsheet application wrote is refused. */
export const MAX_CELL_CHARS = 32_767;

/**
 * A row's text at most, all its cells together (the csv reader's bound on a record's bytes, as
 * characters): a few cells at their longest, not a row of 256 of them.
 */
export const MAX_ROW_CHARS = 4 * MAX_CELL_CHARS;

/**
 * A header's text at most, all its labels together: it is shown by every answer and screen of
 * the import (256 labels of 32,767 characters, one shared string repeated, made a 7 KB file's
 * every GET /v1/import/{id} 8 MB).
 */
export const MAX_HEADER_CHARS = 65_536;

/** A sheet's name at most (Excel allows 31; LibreOffice more): it is shown on every screen of the import. */
export const MAX_SHEET_NAME_CHARS = 255;

/** Column letters of a 0-based index, as a spreadsheet shows them (0 → A, 27 → AB). */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
