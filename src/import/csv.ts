import { AppError } from '../errors';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { ImportLimits, SheetRow, Spreadsheet } from './types';

const encodingError = (cauza: string) => new AppError('IMPORT_CODARE', cauza);

/**
 * The text of a csv. UTF-8 (with or without BOM) and UTF-16 with a BOM (Excel's "Unicode
 * text") are read as such. Bytes that are not UTF-8 are read as Windows-1250, the code page of
 * Romanian Windows exports (its ă, â, î, ș, ț sit where ISO-8859-2 has them); text that would
 * then hold control characters is neither, and is refused with a message that says so.
 */
export function decodeCsv(buffer: Buffer): { text: string; encoding: string } {
  if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(buffer.subarray(3)), encoding: 'utf-8' };
  }
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(buffer.subarray(2)), encoding: 'utf-16le' };
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(buffer.subarray(2)), encoding: 'utf-16be' };
  const nul = buffer.indexOf(0);
  if (nul !== -1) {
    throw encodingError('Fișierul conține octeți nuli: pare UTF-16 sau UTF-32 fără BOM, ori nu este text. Salvați-l ca „CSV UTF-8”.');
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(buffer), encoding: 'utf-8' };
  } catch {
    const text = new TextDecoder('windows-1250').decode(buffer);
    const control = /[\u0080-\u009f]/.exec(text);
    if (control) {
      const at = buffer.indexOf(text.charCodeAt(control.index) & 0xff);
      throw encodingError(`Nu este UTF-8 și nici Windows-1250 / ISO-8859-2 (octetul 0x${(text.charCodeAt(control.index) & 0xff).toString(16)} la poziția ${at}).`);
    }
    return { text, encoding: 'windows-1250' };
  }
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

async function* csvRows(text: string, delimiter: string, limits: ImportLimits): AsyncGenerator<SheetRow> {
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, info: true });
  // Fed in slices, so csv-parse never holds a second copy of the whole text.
  Readable.from(
    (function* () {
      for (let i = 0; i < text.length; i += 65_536) yield text.slice(i, i + 65_536);
    })(),
  ).pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (record.length > limits.maxColumns && record.slice(limits.maxColumns).some((c) => c.trim() !== '')) {
        throw new AppError('IMPORT_PREA_MULTE_COLOANE', `Rândul ${info.lines} are valori după coloana ${limits.maxColumns}.`);
      }
      yield { line: info.lines, cells: record.slice(0, limits.maxColumns).map((c) => (c === '' ? null : c)) };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const where = (error as { lines?: number }).lines;
    throw new AppError('IMPORT_FISIER_CORUPT', `CSV-ul nu poate fi citit${where ? ` (linia ${where})` : ''}: ${(error as Error).message.slice(0, 120)}`);
  } finally {
    parser.destroy();
  }
}

export function openCsv(buffer: Buffer, limits: ImportLimits): Spreadsheet {
  const { text, encoding } = decodeCsv(buffer);
  if (/[\u0000-\u0008\u000e-\u001f]/.test(text.slice(0, 65_536))) {
    throw new AppError('IMPORT_TIP_NESUPORTAT', 'Fișierul conține caractere de control: nu este un CSV text.');
  }
  const delimiter = detectDelimiter(text);
  return { kind: 'csv', encoding, delimiter, date1904: false, sheets: [{ name: 'csv', hidden: false }], rows: () => csvRows(text, delimiter, limits) };
}
