import { openCsv } from './csv';
import { sniffFile } from './detect';
import type { ImportLimits, Spreadsheet } from './types';
import { openXlsx } from './xlsx';

/** An upload opened as a spreadsheet, whatever it claims to be: the bytes decide. */
export async function openSpreadsheet(buffer: Buffer, limits: ImportLimits): Promise<Spreadsheet> {
  const kind = sniffFile(buffer);
  if (kind === 'zip') return openXlsx(buffer, limits);
  return openCsv(buffer, limits);
}
