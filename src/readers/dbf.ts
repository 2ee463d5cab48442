import { AppError } from '../errors';
import type { Readable } from 'node:stream';
import type { CellValue } from '../domain/import-cells';
import { canDecode, codePageLabel, fieldDecoder, judgeCodePage, LANGUAGE_DRIVERS, type FieldDecoder } from './code-pages';
import { MAX_CELL_CHARS, MAX_SHEET_NAME_CHARS, type DbfInfo, type ImportLimits, type SheetRow, type Spreadsheet } from './types';
import type { ZipArchive } from './zip';

// An xBase table (dBase III/IV, FoxPro 2, Visual FoxPro, Clipper/Harbour) read as one sheet:
// its field names are the header (line 0), each record that is not deleted a row whose line
// is its record number (RECNO(), as the program shows it). Values are typed as the table
// declares them: dates as YYYY-MM-DD, numerics and currency as numbers, logicals as booleans.
//
// Our own reader rather than a library: the ones on npm (dbffile, node-dbf, dbf-reader) read
// from a path (an upload is a Buffer, and its memo may come from a zip), decode through
// iconv-lite, and trust the header: a record count past the file's end reads zeros or throws
// a RangeError mid-import. Here every size the header announces is checked against the bytes
// before a record is read, and the whole table is a Buffer walked by offsets.

const corrupt = (cauza: string) => new AppError('IMPORT_DBF_CORUPT', cauza);

/** The table's version byte → the program that wrote it. dBase 7 (0x04, 48-byte fields) is refused as unknown. */
const VERSIONS: Record<number, string> = {
  2: 'FoxBASE',
  3: 'dBase III / IV / Clipper, fără memo',
  131: 'dBase III / Clipper, cu memo (.dbt)',
  139: 'dBase IV, cu memo (.dbt)',
  67: 'dBase IV SQL',
  99: 'dBase IV SQL',
  203: 'dBase IV SQL, cu memo',
  245: 'FoxPro 2, cu memo (.fpt)',
  251: 'FoxBASE',
  48: 'Visual FoxPro',
  49: 'Visual FoxPro (cu autoincrement)',
  50: 'Visual FoxPro (cu varchar / varbinary)',
};
const VISUAL_FOXPRO = new Set([0x30, 0x31, 0x32]);

/** Field types with no text for a visit (binary, OLE, pictures, VFP's null flags): left out, and said so. */
const SKIPPED_TYPES = new Set(['G', 'P', 'W', 'Q', '0']);
const KNOWN_TYPES = new Set(['C', 'V', 'N', 'F', 'D', 'L', 'I', 'Y', 'B', 'T', 'M', ...SKIPPED_TYPES]);

const HEADER_BYTES = 32;
const FIELD_BYTES = 32;
/** A memo's bytes at most: a cell of MAX_CELL_CHARS characters in a multi-byte code page. */
const MAX_MEMO_BYTES = 4 * MAX_CELL_CHARS;

interface Field {
  name: string;
  type: string;
  offset: number;
  length: number;
  decimals: number;
}

interface Header {
  version: number;
  records: number;
  headerLength: number;
  recordLength: number;
  languageDriver: number;
  fields: Field[];
  skipped: string[];
  hasMemoFields: boolean;
}

/** Whether the bytes begin like an xBase table: a known version, a valid last-update date, sizes a table can have. */
export function looksLikeDbf(buffer: Buffer): boolean {
  if (buffer.length < HEADER_BYTES + 1 || !(buffer[0]! in VERSIONS)) return false;
  const month = buffer[2]!;
  const day = buffer[3]!;
  const headerLength = buffer.readUInt16LE(8);
  const recordLength = buffer.readUInt16LE(10);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && headerLength >= HEADER_BYTES + 1 && recordLength >= 1;
}

function fieldName(buffer: Buffer, at: number): string {
  const end = buffer.indexOf(0, at);
  return buffer.toString('latin1', at, end === -1 || end > at + 11 ? at + 11 : end).trim();
}

/** The header and field descriptors, each size checked against the table's bytes. */
function readHeader(buffer: Buffer, table: string, limits: ImportLimits): Header {
  if (!looksLikeDbf(buffer)) throw corrupt(`Antetul tabelei ${table} nu este al unei tabele dBase / FoxPro.`);
  const version = buffer[0]!;
  const records = buffer.readUInt32LE(4);
  const headerLength = buffer.readUInt16LE(8);
  const recordLength = buffer.readUInt16LE(10);
  if (headerLength > buffer.length) throw corrupt(`Antetul tabelei ${table} anunță ${headerLength} octeți, dar fișierul are ${buffer.length}.`);
  const fields: Field[] = [];
  const skipped: string[] = [];
  let hasMemoFields = false;
  let offset = 1; // the deletion flag
  for (let at = HEADER_BYTES; buffer[at] !== 0x0d; at += FIELD_BYTES) {
    if (at + FIELD_BYTES > headerLength) throw corrupt(`Descrierea câmpurilor tabelei ${table} trece de antetul de ${headerLength} octeți (lipsește terminatorul 0x0D).`);
    const name = fieldName(buffer, at) || `CAMP${fields.length + 1}`;
    const type = String.fromCharCode(buffer[at + 11]!).toUpperCase();
    // Clipper and Harbour keep a character field's length over 255 in the decimals byte.
    const length = type === 'C' && !VISUAL_FOXPRO.has(version) ? buffer[at + 16]! + 256 * buffer[at + 17]! : buffer[at + 16]!;
    const decimals = type === 'C' ? 0 : buffer[at + 17]!;
    if (!KNOWN_TYPES.has(type)) throw corrupt(`Câmpul ${name} al tabelei ${table} are tipul necunoscut „${type}” (0x${buffer[at + 11]!.toString(16)}).`);
    if (length === 0) throw corrupt(`Câmpul ${name} al tabelei ${table} are lungimea 0.`);
    if (offset + length > recordLength) {
      throw corrupt(`Câmpul ${name} al tabelei ${table} se termină la octetul ${offset + length} al înregistrării, dar înregistrarea are ${recordLength} octeți.`);
    }
    if (type === 'M' || (type === 'B' && !VISUAL_FOXPRO.has(version))) hasMemoFields = true;
    if (SKIPPED_TYPES.has(type) || (type === 'B' && !VISUAL_FOXPRO.has(version))) skipped.push(name);
    else fields.push({ name, type, offset, length, decimals });
    offset += length;
  }
  if (fields.length === 0) throw corrupt(`Tabela ${table} nu are câmpuri de citit.`);
  if (fields.length > limits.maxColumns) throw new AppError('IMPORT_PREA_MULTE_COLOANE', `Tabela ${table} are ${fields.length} de câmpuri (cel mult ${limits.maxColumns}).`);
  const holds = Math.floor((buffer.length - headerLength) / recordLength);
  if (records > holds) {
    throw corrupt(
      `Antetul tabelei ${table} anunță ${records.toLocaleString('ro-RO')} de înregistrări de ${recordLength} octeți, dar fișierul cuprinde doar ${holds.toLocaleString('ro-RO')}.`,
    );
  }
  return { version, records, headerLength, recordLength, languageDriver: buffer[29]!, fields, skipped, hasMemoFields: hasMemoFields || fields.some((f) => f.type === 'M') };
}

/** The text bytes of the first records, to judge the code page of a table that names none. */
function textSample(buffer: Buffer, header: Header): Buffer {
  const parts: Buffer[] = [];
  const text = header.fields.filter((f) => f.type === 'C' || f.type === 'V');
  const last = Math.min(header.records, 2_000);
  for (let r = 0; r < last; r++) {
    const start = header.headerLength + r * header.recordLength;
    for (const f of text) parts.push(buffer.subarray(start + f.offset, start + f.offset + f.length));
  }
  return Buffer.concat(parts);
}

interface Memo {
  bytes: Buffer;
  kind: 'dbt' | 'fpt';
  blockSize: number;
}

function openMemo(bytes: Buffer, kind: 'dbt' | 'fpt', table: string): Memo {
  if (bytes.length < 512) throw corrupt(`Fișierul memo al tabelei ${table} are ${bytes.length} octeți, mai puțin decât antetul lui.`);
  if (kind === 'fpt') return { bytes, kind, blockSize: bytes.readUInt16BE(6) || 512 };
  // dBase IV keeps its block size at byte 20; dBase III's blocks are 512 bytes.
  const dbase4 = bytes.readUInt16LE(20);
  return { bytes, kind, blockSize: dbase4 >= 64 && dbase4 % 64 === 0 ? dbase4 : 512 };
}

/** The memo at `block`: its bytes, bounded by the file and by MAX_MEMO_BYTES. */
function memoBytes(memo: Memo, block: number, where: () => string): Buffer | null {
  if (block === 0) return null;
  const start = block * memo.blockSize;
  const { bytes } = memo;
  if (start >= bytes.length) throw corrupt(`${where()}: blocul memo ${block} este după sfârșitul fișierului memo.`);
  const tooLong = () => new AppError('IMPORT_CELULA_PREA_LUNGA', `${where()}: textul memo are peste ${MAX_MEMO_BYTES.toLocaleString('ro-RO')} de octeți.`);
  if (memo.kind === 'fpt' || (bytes.readUInt16LE(start) === 0xffff && bytes.readUInt16LE(start + 2) === 0x0008)) {
    if (start + 8 > bytes.length) throw corrupt(`${where()}: blocul memo ${block} este trunchiat.`);
    // FoxPro: type and length big-endian; dBase IV: FF FF 08 00, then the length (with these 8 bytes) little-endian.
    const length = memo.kind === 'fpt' ? bytes.readUInt32BE(start + 4) : bytes.readUInt32LE(start + 4) - 8;
    if (length > MAX_MEMO_BYTES) throw tooLong();
    if (length < 0 || start + 8 + length > bytes.length) throw corrupt(`${where()}: textul memo anunță ${length} octeți după sfârșitul fișierului memo.`);
    return bytes.subarray(start + 8, start + 8 + length);
  }
  // dBase III: the text ends at 0x1A.
  const end = bytes.indexOf(0x1a, start);
  if (end === -1 ? bytes.length - start > MAX_MEMO_BYTES : end - start > MAX_MEMO_BYTES) throw tooLong();
  return bytes.subarray(start, end === -1 ? bytes.length : end);
}

const julianDayEpoch = 2_440_588; // 1970-01-01

const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

function isoDate(buffer: Buffer, at: number): string | null {
  let digits = true;
  let blank = true;
  for (let i = at; i < at + 8; i++) {
    const b = buffer[i]!;
    digits &&= isDigit(b);
    blank &&= b === 0x20 || b === 0x30 || b === 0;
  }
  if (blank) return null;
  if (digits) return `${buffer.toString('latin1', at, at + 4)}-${buffer.toString('latin1', at + 4, at + 6)}-${buffer.toString('latin1', at + 6, at + 8)}`;
  return buffer.toString('latin1', at, at + 8).trim();
}

interface Reading {
  buffer: Buffer;
  header: Header;
  decode: FieldDecoder;
  memo: Memo | null;
  table: string;
}

function cellOf({ buffer, decode, memo, table }: Reading, field: Field, start: number, recno: number): CellValue {
  const at = start + field.offset;
  const end = at + field.length;
  switch (field.type) {
    case 'C':
    case 'V': {
      let last = end;
      while (last > at && (buffer[last - 1] === 0x20 || buffer[last - 1] === 0)) last--;
      return last === at ? null : decode(buffer, at, last);
    }
    case 'N':
    case 'F': {
      const text = buffer.toString('latin1', at, end).trim();
      if (text === '') return null;
      const n = Number(text);
      if (Number.isFinite(n)) return n;
      // An overflowed value (****) or a lone point: empty, as the program shows it.
      return text[0] === '*' || text === '.' ? null : text;
    }
    case 'D':
      return isoDate(buffer, at);
    case 'L': {
      const c = String.fromCharCode(buffer[at]!).toUpperCase();
      return c === 'T' || c === 'Y' ? true : c === 'F' || c === 'N' ? false : null;
    }
    case 'I':
      return field.length === 4 ? buffer.readInt32LE(at) : null;
    case 'Y':
      return field.length === 8 ? Number(buffer.readBigInt64LE(at)) / 10_000 : null;
    case 'B':
      return field.length === 8 ? buffer.readDoubleLE(at) : null;
    case 'T': {
      if (field.length !== 8) return null;
      const day = buffer.readInt32LE(at);
      if (day === 0) return null;
      const ms = (day - julianDayEpoch) * 86_400_000 + buffer.readInt32LE(at + 4);
      return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : null;
    }
    case 'M': {
      const block = field.length === 4 ? buffer.readUInt32LE(at) : Number(buffer.toString('latin1', at, end).trim() || '0');
      if (!Number.isInteger(block))
        throw corrupt(`Tabela ${table}, înregistrarea ${recno}, câmpul ${field.name}: trimiterea memo „${buffer.toString('latin1', at, end)}” nu este un număr de bloc.`);
      if (block === 0) return null;
      if (!memo) return null;
      const bytes = memoBytes(memo, block, () => `Tabela ${table}, înregistrarea ${recno}, câmpul ${field.name}`);
      if (!bytes) return null;
      const text = decode(bytes, 0, bytes.length).replace(/\s+$/, '').replaceAll('\0', '');
      return text === '' ? null : text;
    }
    default:
      return null;
  }
}

async function* records(reading: Reading): AsyncGenerator<SheetRow> {
  const { buffer, header } = reading;
  // Only a memo or a character field longer than a cell may hold too long a text.
  const mayBeLong = header.fields.some((f) => f.type === 'M' || f.length > MAX_CELL_CHARS);
  yield { line: 0, cells: header.fields.map((f) => f.name) };
  for (let r = 0; r < header.records; r++) {
    const start = header.headerLength + r * header.recordLength;
    // '*' marks a deleted record (DELETE without PACK): never a visit.
    if (buffer[start] === 0x2a) continue;
    const cells = header.fields.map((f) => cellOf(reading, f, start, r + 1));
    const long = mayBeLong ? cells.findIndex((c) => typeof c === 'string' && c.length > MAX_CELL_CHARS) : -1;
    if (long !== -1) {
      throw new AppError(
        'IMPORT_CELULA_PREA_LUNGA',
        `Înregistrarea ${r + 1}, câmpul ${header.fields[long]!.name} are peste ${MAX_CELL_CHARS.toLocaleString('ro-RO')} de caractere.`,
      );
    }
    yield { line: r + 1, cells };
  }
}

export interface DbfTable {
  /** The table's name as its sheet (the file's name without .dbf, in a zip; else "dbf"). */
  name: string;
  bytes: Buffer;
  memo: { bytes: Buffer; kind: 'dbt' | 'fpt' } | null;
}

interface OpenedTable {
  reading: Reading;
  info: DbfInfo;
}

function openTable(table: DbfTable, limits: ImportLimits): OpenedTable {
  const label = table.name === 'dbf' ? '.dbf' : `„${table.name}”`;
  const header = readHeader(table.bytes, label, limits);
  if (header.hasMemoFields && !table.memo) {
    throw new AppError(
      'IMPORT_DBF_MEMO',
      `Tabela ${label} are câmpuri memo (${header.fields
        .filter((f) => f.type === 'M')
        .map((f) => f.name)
        .join(', ')}), dar fișierul lor (.fpt sau .dbt) nu a fost încărcat cu ea.`,
    );
  }
  const declared = LANGUAGE_DRIVERS[header.languageDriver];
  const chosen = limits.codePage;
  const codePage = chosen ?? declared ?? judgeCodePage(textSample(table.bytes, header));
  if (!canDecode(codePage)) {
    throw new AppError('IMPORT_DBF_CODARE', `Antetul tabelei ${label} numește pagina de cod ${codePage} (octetul 0x${header.languageDriver.toString(16)}), pe care nu o citim.`);
  }
  let deleted = 0;
  for (let r = 0; r < header.records; r++) if (table.bytes[header.headerLength + r * header.recordLength] === 0x2a) deleted++;
  const memo = table.memo ? openMemo(table.memo.bytes, table.memo.kind, label) : null;
  return {
    reading: { buffer: table.bytes, header, decode: fieldDecoder(codePage), memo, table: label },
    info: {
      format: VERSIONS[header.version]!,
      languageDriver: header.languageDriver,
      codePage,
      codePageLabel: codePageLabel(codePage),
      codePageFrom: chosen !== undefined ? 'ales' : declared !== undefined ? 'antet' : 'text',
      records: header.records,
      deleted,
      memo: table.memo?.kind ?? null,
      skippedFields: header.skipped,
    },
  };
}

/** One or more xBase tables (a zip may hold several, each a sheet; their memo files beside them). */
export function openDbf(tables: readonly DbfTable[], limits: ImportLimits): Spreadsheet {
  const opened = new Map(tables.map((t) => [t.name, openTable(t, limits)] as const));
  const first = opened.values().next().value!;
  return {
    kind: 'dbf',
    date1904: false,
    dbf: { ...first.info, records: [...opened.values()].reduce((n, t) => n + t.info.records, 0), deleted: [...opened.values()].reduce((n, t) => n + t.info.deleted, 0) },
    sheets: tables.map((t) => ({ name: t.name, hidden: false })),
    rows(name) {
      const table = opened.get(name);
      if (!table) throw new AppError('IMPORT_FOAIE', `Tabela „${name}” nu este în fișier.`);
      return records(table.reading);
    },
  };
}

async function readWhole(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const extension = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase();
const stem = (name: string) => name.slice(name.lastIndexOf('/') + 1, name.lastIndexOf('.'));

/**
 * The tables of a zip: each `.dbf` a sheet named by its file, and the `.fpt` or `.dbt` of the
 * same name its memo. Inflated through the archive's own budget (zip.ts), so a zip bomb is
 * refused as for an xlsx.
 */
export async function openDbfArchive(zip: ZipArchive, limits: ImportLimits): Promise<Spreadsheet> {
  const names = zip.names().filter((n) => !n.endsWith('/') && !n.startsWith('__MACOSX/'));
  const tables = names.filter((n) => extension(n) === 'dbf').sort();
  const tablesOut: DbfTable[] = [];
  for (const path of tables) {
    const name = stem(path).slice(0, MAX_SHEET_NAME_CHARS) || 'dbf';
    const memoPath = names.find((n) => (extension(n) === 'fpt' || extension(n) === 'dbt') && stem(n).toLowerCase() === stem(path).toLowerCase());
    const bytes = await readWhole(await zip.open(path));
    const memo = memoPath ? { bytes: await readWhole(await zip.open(memoPath)), kind: extension(memoPath) as 'fpt' | 'dbt' } : null;
    tablesOut.push({ name, bytes, memo });
  }
  return openDbf(tablesOut, limits);
}
