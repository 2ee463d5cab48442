import { openCsv } from './csv';
import { openDbf, openDbfArchive } from './dbf';
import { sniffFile } from './detect';
import type { ImportLimits, Spreadsheet } from './types';
import { openXlsx } from './xlsx';
import { openArchive } from './zip';

/** An upload opened as a spreadsheet, whatever it claims to be: the bytes decide. */
export async function openSpreadsheet(buffer: Buffer, limits: ImportLimits): Promise<Spreadsheet> {
  const kind = sniffFile(buffer);
  if (kind === 'dbf') return openDbf([{ name: 'dbf', bytes: buffer, memo: null }], limits);
  if (kind === 'zip') {
    // A zip of xBase tables (a .dbf with its .fpt or .dbt memo) is read as tables; any other as an xlsx, which says what it is if not one.
    const zip = await openArchive(buffer, limits.maxUncompressedBytes);
    if (!zip.has('xl/workbook.xml') && zip.names().some((n) => n.toLowerCase().endsWith('.dbf'))) return openDbfArchive(zip, limits);
    return openXlsx(buffer, limits);
  }
  return openCsv(buffer, limits);
}
