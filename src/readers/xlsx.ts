import { AppError } from '../errors';
import { posix } from 'node:path';
import type { CellValue } from '../domain/import-cells';
import { columnLetters, MAX_CELL_CHARS, MAX_ROW_CHARS, MAX_SHEET_NAME_CHARS, type ImportLimits, type SheetInfo, type SheetRow, type Spreadsheet } from './types';
import { FillDown, mergeLimit, readMergedRanges } from './merged';
import { collectXml, parseXml } from './xml';
import { openArchive, type ZipArchive } from './zip';

interface SheetPart extends SheetInfo {
  path: string;
}

/** `C12` → 2 (0-based column of a cell reference). */
export function columnIndex(ref: string): number {
  let index = 0;
  for (const ch of ref) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
  }
  return index - 1;
}

const tooLong = (cauza: string) => new AppError('IMPORT_CELULA_PREA_LUNGA', cauza);
const MAX_CHARS = MAX_CELL_CHARS.toLocaleString('ro-RO');

/** Relationship targets are relative to the part that names them (`xl/`), or absolute. */
function partPath(target: string): string {
  return target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join('xl', target));
}

async function readWorkbook(zip: ZipArchive): Promise<{ sheets: SheetPart[]; date1904: boolean; sharedStrings: string | null }> {
  type Item = { kind: 'sheet'; name: string; rid: string; hidden: boolean } | { kind: 'date1904' };
  const items = await collectXml<Item>('xl/workbook.xml', await zip.open('xl/workbook.xml'), (emit) => ({
    open(name, a) {
      if (name === 'sheet') emit({ kind: 'sheet', name: a.name ?? '', rid: a['r:id'] ?? a.id ?? '', hidden: a.state === 'hidden' || a.state === 'veryHidden' });
      if (name === 'workbookPr' && (a.date1904 === '1' || a.date1904 === 'true')) emit({ kind: 'date1904' });
    },
    text() {},
    close() {},
  }));
  const rels = zip.has('xl/_rels/workbook.xml.rels')
    ? await collectXml<{ id: string; type: string; target: string }>('xl/_rels/workbook.xml.rels', await zip.open('xl/_rels/workbook.xml.rels'), (emit) => ({
        open(name, a) {
          if (name === 'Relationship') emit({ id: a.Id ?? '', type: a.Type ?? '', target: a.Target ?? '' });
        },
        text() {},
        close() {},
      }))
    : [];
  const byId = new Map(rels.map((r) => [r.id, partPath(r.target)]));
  for (const item of items) {
    if (item.kind === 'sheet' && item.name.length > MAX_SHEET_NAME_CHARS) {
      throw tooLong(`Numele unei foi are ${item.name.length.toLocaleString('ro-RO')} de caractere (cel mult ${MAX_SHEET_NAME_CHARS}): „${item.name.slice(0, 40)}…”.`);
    }
  }
  const sheets = items.flatMap((i) => (i.kind === 'sheet' ? [{ name: i.name, hidden: i.hidden, path: byId.get(i.rid) ?? '' }] : []));
  const shared = rels.find((r) => r.type.endsWith('/sharedStrings'));
  const sharedPath = shared ? partPath(shared.target) : 'xl/sharedStrings.xml';
  return { sheets, date1904: items.some((i) => i.kind === 'date1904'), sharedStrings: zip.has(sharedPath) ? sharedPath : null };
}

/** The shared string table: each `<si>` is its text runs joined (phonetic hints left out). */
async function readSharedStrings(zip: ZipArchive, path: string | null): Promise<string[]> {
  if (!path) return [];
  let text = '';
  let inT = false;
  let inPhonetic = false;
  let index = -1;
  const where = () => `Textul comun nr. ${index + 1} (${path})`;
  return collectXml<string>(path, await zip.open(path), (emit) => ({
    open(name) {
      if (name === 'si') {
        text = '';
        index += 1;
      } else if (name === 't') inT = !inPhonetic;
      else if (name === 'rPh') inPhonetic = true;
    },
    text(t) {
      if (!inT) return;
      // Refused before it is joined: a shared string is stored once and may fill every cell.
      if (text.length + t.length > MAX_CELL_CHARS) throw tooLong(`${where()} are mai mult de ${MAX_CHARS} de caractere.`);
      text += t;
    },
    close(name) {
      if (name === 't') inT = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') emit(text);
    },
    where,
  }));
}

function cellValue(type: string, text: string, strings: readonly string[]): CellValue {
  switch (type) {
    case 's':
      return strings[Number(text)] ?? null;
    case 'b':
      return text === '1' || text === 'true';
    case 'e':
      return null;
    case 'str':
    case 'inlineStr':
    case 'd':
      return text;
    default: {
      if (text === '') return null;
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
  }
}

/**
 * The pass over the rows for the merged ranges only searches bytes: larger pieces than yauzl's
 * 16 KB make it less than half as long, and pieces of the ranges' XML still parse in a few ms.
 */
const MERGE_PASS_CHUNK = 64 * 1024;

/**
 * One sheet, row by row, straight from the inflating stream. Its merged ranges, which the part
 * lists after its rows, are read first by a pass that skips the rows (`merged.ts`).
 */
async function* readSheet(zip: ZipArchive, sheet: SheetPart, strings: readonly string[], limits: ImportLimits): AsyncGenerator<SheetRow> {
  const part = await zip.open(sheet.path, { chunkSize: MERGE_PASS_CHUNK });
  const merged = await readMergedRanges(sheet.path, sheet.name, part, limits.maxColumns, mergeLimit(limits.maxRows));
  const fill = merged ? new FillDown(merged) : null;
  let line = 0;
  let cells: CellValue[] = [];
  let column = 0;
  let type = 'n';
  let text = '';
  let capture = false;
  let inPhonetic = false;
  // What the rows hold, a shared string counted at each use: a few bytes of XML each, references to
  // one string of 32,767 characters made a file of kilobytes gigabytes of rows to stage and show.
  let sheetChars = 0;
  const where = () => `Celula din foaia „${sheet.name}”, rândul ${line}, coloana ${columnLetters(column)}`;
  yield* parseXml<SheetRow>(sheet.path, await zip.open(sheet.path), (emit) => ({
    open(name, a) {
      if (name === 'row') {
        line = a.r ? Number(a.r) : line + 1;
        cells = [];
        column = 0;
      } else if (name === 'c') {
        column = a.r ? columnIndex(a.r) : column;
        type = a.t ?? 'n';
        text = '';
      } else if (name === 'v' || (name === 't' && !inPhonetic)) capture = true;
      else if (name === 'rPh') inPhonetic = true;
    },
    text(t) {
      if (!capture) return;
      if (text.length + t.length > MAX_CELL_CHARS) throw tooLong(`${where()} are mai mult de ${MAX_CHARS} de caractere.`);
      text += t;
    },
    close(name) {
      if (name === 'v' || name === 't') capture = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'c') {
        const value = cellValue(type, text, strings);
        if (value !== null && value !== '') {
          if (column >= limits.maxColumns) {
            throw new AppError('IMPORT_PREA_MULTE_COLOANE', `Foaia „${sheet.name}” are valori după coloana ${limits.maxColumns} (rândul ${line}).`);
          }
          cells[column] = value;
        }
        column += 1;
      } else if (name === 'row') {
        fill?.apply(line, cells);
        let chars = 0;
        for (const c of cells) if (typeof c === 'string') chars += c.length;
        if (chars > MAX_ROW_CHARS)
          throw tooLong(`Rândul ${line} al foii „${sheet.name}” are ${chars.toLocaleString('ro-RO')} de caractere (cel mult ${MAX_ROW_CHARS.toLocaleString('ro-RO')}).`);
        sheetChars += chars;
        if (sheetChars > limits.maxUncompressedBytes) {
          throw tooLong(
            `Celulele foii „${sheet.name}” au împreună, până la rândul ${line}, mai mult de ${limits.maxUncompressedBytes.toLocaleString('ro-RO')} de caractere (un text comun repetat este numărat la fiecare folosire).`,
          );
        }
        emit({ line, cells: Array.from(cells, (c) => c ?? null) });
      }
    },
    where,
  }));
}

/** An xlsx read with random access to its parts: workbook, shared strings, then each sheet on demand. */
export async function openXlsx(buffer: Buffer, limits: ImportLimits): Promise<Spreadsheet> {
  const zip = await openArchive(buffer, limits.maxUncompressedBytes);
  if (!zip.has('xl/workbook.xml')) {
    const what = zip.has('word/document.xml') ? 'un document Word' : zip.has('content.xml') ? 'un fișier OpenDocument (.ods)' : 'o arhivă zip';
    throw new AppError('IMPORT_TIP_NESUPORTAT', `Fișierul este ${what}, nu un registru xlsx.`);
  }
  const { sheets, date1904, sharedStrings } = await readWorkbook(zip);
  const strings = await readSharedStrings(zip, sharedStrings);
  const byName = new Map(sheets.map((s) => [s.name, s]));
  return {
    kind: 'xlsx',
    date1904,
    sheets: sheets.map(({ name, hidden }) => ({ name, hidden })),
    rows(name) {
      const sheet = byName.get(name);
      if (!sheet || !zip.has(sheet.path)) throw new AppError('IMPORT_FISIER_CORUPT', `Foaia „${name}” lipsește din arhivă.`);
      return readSheet(zip, sheet, strings, limits);
    },
  };
}
