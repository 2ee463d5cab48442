import { constants, crc32, createDeflateRaw, type DeflateRaw } from 'node:zlib';
import type { ChunkSink } from './file';

/**
 * A one-sheet xlsx written as it goes, in bounded memory: a zip whose entries are deflated
 * (node:zlib) as they are produced, each followed by a data descriptor (its CRC and sizes,
 * known only at the end), then the central directory. No zip64: an entry or the archive
 * beyond 4 GiB is refused (an import's rows are far below that).
 *
 * Every text is an inline string (`t="inlineStr"`): a spreadsheet never evaluates it, so a
 * cell `=cmd|' /C calc'!A0` stays text and needs no `'`, and a re-upload reads it back as it was.
 * Numbers and booleans keep their types. Characters XML cannot hold are dropped; a CR is
 * written as a reference, since a parser would otherwise fold CRLF into LF.
 */
export type XlsxCell = string | number | boolean | null;

const FLUSH_BYTES = 64 * 1024;
const MAX_ZIP32 = 0xffffffff;
// Excel's limit for a cell's text; beyond it the file is reported as damaged.
const MAX_CELL_TEXT = 32_767;
// 1980-01-01 00:00 in DOS time: the entries carry no meaningful date.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
// Bit 3: sizes and CRC follow the data; bit 11: the name is UTF-8.
const FLAGS = 0x0808;

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
}

const INVALID_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

export function xmlText(text: string): string {
  return text.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r/g, '&#13;');
}

/** 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function cellXml(value: XlsxCell, ref: string, style: string): string {
  if (value === null || value === '') return '';
  if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"${style}><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}"${style} t="b"><v>${value ? 1 : 0}</v></c>`;
  const text = xmlText(String(value).slice(0, MAX_CELL_TEXT));
  return `<c r="${ref}"${style} t="inlineStr"><is><t xml:space="preserve">${text}</t></is></c>`;
}

/** The zip around the parts: entries written one after another, the directory at the end. */
function zipWriter(write: ChunkSink) {
  const entries: Entry[] = [];
  let offset = 0;
  const emit = async (chunk: Buffer) => {
    offset += chunk.length;
    if (offset > MAX_ZIP32) throw new Error('xlsx: arhiva depășește 4 GiB');
    await write(chunk);
  };

  /** One entry, its content handed over by `fill` in pieces and deflated as it comes. */
  async function entry(name: string, fill: (put: (text: string) => Promise<void>) => Promise<void>): Promise<void> {
    const e: Entry = { name: Buffer.from(name, 'utf8'), offset, crc: 0, compressed: 0, size: 0 };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(FLAGS, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt16LE(e.name.length, 26);
    await emit(Buffer.concat([local, e.name]));

    const deflate: DeflateRaw = createDeflateRaw({ level: 6 });
    let out: Buffer[] = [];
    deflate.on('data', (b: Buffer) => out.push(b));
    const forward = async () => {
      const ready = out;
      out = [];
      for (const b of ready) {
        e.compressed += b.length;
        await emit(b);
      }
    };
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const push = async (final: boolean) => {
      const data = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      e.crc = crc32(data, e.crc);
      e.size += data.length;
      if (e.size > MAX_ZIP32) throw new Error('xlsx: o parte depășește 4 GiB');
      deflate.write(data);
      if (final) await new Promise<void>((resolve, reject) => deflate.once('end', resolve).once('error', reject).end());
      else await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
      await forward();
    };
    await fill(async (text) => {
      const bytes = Buffer.from(text, 'utf8');
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= FLUSH_BYTES) await push(false);
    });
    await push(true);

    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(e.crc >>> 0, 4);
    descriptor.writeUInt32LE(e.compressed, 8);
    descriptor.writeUInt32LE(e.size, 12);
    await emit(descriptor);
    entries.push(e);
  }

  async function finish(): Promise<void> {
    const start = offset;
    const headers = entries.map((e) => {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(20, 4);
      h.writeUInt16LE(20, 6);
      h.writeUInt16LE(FLAGS, 8);
      h.writeUInt16LE(8, 10);
      h.writeUInt16LE(DOS_TIME, 12);
      h.writeUInt16LE(DOS_DATE, 14);
      h.writeUInt32LE(e.crc >>> 0, 16);
      h.writeUInt32LE(e.compressed, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt32LE(e.offset, 42);
      return Buffer.concat([h, e.name]);
    });
    const directory = Buffer.concat(headers);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(start, 16);
    await emit(Buffer.concat([directory, end]));
  }

  return { entry, finish };
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const CONTENT_TYPES = `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK_RELS = `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
// Style 1: bold, for the header row.
const STYLES = `${XML}<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

const workbook = (sheetName: string) =>
  `${XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${xmlText(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/**
 * Writes a workbook of one sheet: `header` (bold, frozen), then the rows `fill` hands over.
 * Only the sheet part is large; it is deflated and written while `fill` runs.
 */
export async function writeXlsx(
  write: ChunkSink,
  options: { sheetName: string; header: readonly string[] },
  fill: (row: (cells: readonly XlsxCell[]) => Promise<void>) => Promise<void>,
): Promise<void> {
  const zip = zipWriter(write);
  await zip.entry('[Content_Types].xml', (put) => put(CONTENT_TYPES));
  await zip.entry('_rels/.rels', (put) => put(ROOT_RELS));
  await zip.entry('xl/workbook.xml', (put) => put(workbook(options.sheetName)));
  await zip.entry('xl/_rels/workbook.xml.rels', (put) => put(WORKBOOK_RELS));
  await zip.entry('xl/styles.xml', (put) => put(STYLES));
  await zip.entry('xl/worksheets/sheet1.xml', async (put) => {
    await put(
      `${XML}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>`,
    );
    let line = 0;
    const row = async (cells: readonly XlsxCell[], style = '') => {
      line += 1;
      await put(`<row r="${line}">${cells.map((c, i) => cellXml(c, `${columnName(i)}${line}`, style)).join('')}</row>`);
    };
    await row(options.header, ' s="1"');
    await fill((cells) => row(cells));
    await put('</sheetData></worksheet>');
  });
  await zip.finish();
}
