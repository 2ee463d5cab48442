import { AppError } from '../errors';
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { columnLetters, MAX_CELL_CHARS, MAX_HEADER_CHARS, type ImportLimits, type SheetRow, type Spreadsheet } from './types';

const encodingError = (cauza: string) => new AppError('IMPORT_CODARE', cauza);

// The bytes Windows-1250 leaves undefined (decoded as C1 control characters): text that holds
// one is neither UTF-8 nor Windows-1250.
const CP1250_UNDEFINED = [0x81, 0x83, 0x88, 0x90, 0x98];

interface CsvBytes {
  encoding: string;
  /** The text's bytes, after the BOM. */
  bytes: Buffer;
}

/**
 * The encoding of a csv, judged on its bytes without decoding them whole. UTF-8 (with or
 * without BOM) and UTF-16 with a BOM (Excel's "Unicode text") are read as such. Bytes that are
 * not UTF-8 are read as Windows-1250, the code page of Romanian Windows exports (its ă, â, î,
 * ș, ț sit where ISO-8859-2 has them); bytes that code page leaves undefined are neither, and
 * are refused with a message that says so.
 */
function csvBytes(buffer: Buffer): CsvBytes {
  if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) return { encoding: 'utf-8', bytes: buffer.subarray(3) };
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return { encoding: 'utf-16le', bytes: buffer.subarray(2) };
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return { encoding: 'utf-16be', bytes: buffer.subarray(2) };
  if (buffer.indexOf(0) !== -1) {
    throw encodingError('Fișierul conține octeți nuli: pare UTF-16 sau UTF-32 fără BOM, ori nu este text. Salvați-l ca „CSV UTF-8”.');
  }
  if (isUtf8(buffer)) return { encoding: 'utf-8', bytes: buffer };
  const at = Math.min(...CP1250_UNDEFINED.map((byte) => buffer.indexOf(byte)).filter((i) => i !== -1));
  if (Number.isFinite(at)) throw encodingError(`Nu este UTF-8 și nici Windows-1250 / ISO-8859-2 (octetul 0x${buffer[at]!.toString(16)} la poziția ${at}).`);
  return { encoding: 'windows-1250', bytes: buffer };
}

const SLICE = 16_384;

/**
 * The text in slices of SLICE bytes, decoded as the reader asks for them: a 15 MB file is
 * never one string, nor one long decode on the event loop. csv-parse parses a slice in one go:
 * 16 KB is about a millisecond of the event loop where 64 KB held it 4–10 ms, and the whole
 * file parses a little faster (bench:import csv 2.88–2.92 s against 3.11–3.13 s).
 */
function* textSlices({ encoding, bytes }: CsvBytes): Generator<string> {
  const decoder = new TextDecoder(encoding);
  for (let i = 0; i < bytes.length; i += SLICE) yield decoder.decode(bytes.subarray(i, i + SLICE), { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The text of a csv, whole, and its encoding (csvBytes). */
export function decodeCsv(buffer: Buffer): { text: string; encoding: string } {
  const decoded = csvBytes(buffer);
  return { text: [...textSlices(decoded)].join(''), encoding: decoded.encoding };
}

/** The separator of the first non-empty line: the most frequent of `;` `,` tab outside quotes. */
export function detectDelimiter(text: string): string {
  const line =
    text
      .slice(0, 65_536)
      .split(/\r?\n/)
      .find((l) => l.trim() !== '') ?? '';
  const counts = new Map<string, number>([
    [';', 0],
    [',', 0],
    ['\t', 0],
  ]);
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  // Ties go to `;`, the list separator of Romanian Excel.
  return [...counts.entries()].reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

/**
 * A record's bytes at most (csv-parse counts UTF-8 bytes of the record so far, fields included):
 * room for one cell of MAX_CELL_CHARS characters of any script, with its neighbours. csv-parse
 * is slow on a record whose line ending it has not met yet (it looks for one at every byte) and
 * holds the whole record, so without this bound one long field held the event loop for seconds.
 */
export const MAX_RECORD_BYTES = 4 * MAX_CELL_CHARS;

const tooLong = (cauza: string) => new AppError('IMPORT_CELULA_PREA_LUNGA', cauza);

async function* csvRows(decoded: CsvBytes, delimiter: string, limits: ImportLimits): AsyncGenerator<SheetRow> {
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, info: true, max_record_size: MAX_RECORD_BYTES });
  // Fed in slices, decoded as it reads them.
  Readable.from(textSlices(decoded)).pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (record.length > limits.maxColumns && record.slice(limits.maxColumns).some((c) => c.trim() !== '')) {
        throw new AppError('IMPORT_PREA_MULTE_COLOANE', `Rândul ${info.lines} are valori după coloana ${limits.maxColumns}.`);
      }
      const long = record.findIndex((c) => c.length > MAX_CELL_CHARS);
      if (long !== -1)
        throw tooLong(
          `Celula din rândul ${info.lines}, coloana ${columnLetters(long)} are ${record[long]!.length.toLocaleString('ro-RO')} de caractere (cel mult ${MAX_CELL_CHARS.toLocaleString('ro-RO')}).`,
        );
      yield { line: info.lines, cells: record.slice(0, limits.maxColumns).map((c) => (c === '' ? null : c)) };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const where = (error as { lines?: number }).lines;
    if ((error as { code?: string }).code === 'CSV_MAX_RECORD_SIZE') {
      throw tooLong(
        `Rândul ${where ?? 1} depășește ${MAX_RECORD_BYTES.toLocaleString('ro-RO')} de octeți: o celulă are mai mult de ${MAX_CELL_CHARS.toLocaleString('ro-RO')} de caractere sau rândul nu se termină.`,
      );
    }
    throw new AppError('IMPORT_FISIER_CORUPT', `CSV-ul nu poate fi citit${where ? ` (linia ${where})` : ''}: ${(error as Error).message.slice(0, 120)}`);
  } finally {
    parser.destroy();
  }
}

/**
 * Refuses a file whose first line does not end within MAX_HEADER_CHARS characters, before the
 * parser sees it: its header is read before the first rows are staged, and a file of one line
 * would otherwise be parsed whole as its "first rows".
 */
function headerLineBounded(decoded: CsvBytes): void {
  let seen = 0;
  for (const slice of textSlices(decoded)) {
    const end = slice.search(/[\r\n]/);
    if (end !== -1 && seen + end <= MAX_HEADER_CHARS) return;
    seen += end === -1 ? slice.length : end;
    if (seen > MAX_HEADER_CHARS) throw tooLong(`Primul rând (antetul) nu se termină în primele ${MAX_HEADER_CHARS.toLocaleString('ro-RO')} de caractere.`);
  }
}

export function openCsv(buffer: Buffer, limits: ImportLimits): Spreadsheet {
  const decoded = csvBytes(buffer);
  // The first slice is enough to tell text from binary and to find the separator.
  const head = textSlices(decoded).next().value ?? '';
  if (/[\u0000-\u0008\u000e-\u001f]/.test(head)) {
    throw new AppError('IMPORT_TIP_NESUPORTAT', 'Fișierul conține caractere de control: nu este un CSV text.');
  }
  headerLineBounded(decoded);
  const delimiter = detectDelimiter(head);
  return { kind: 'csv', encoding: decoded.encoding, delimiter, date1904: false, sheets: [{ name: 'csv', hidden: false }], rows: () => csvRows(decoded, delimiter, limits) };
}
