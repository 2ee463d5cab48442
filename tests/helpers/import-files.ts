import { crc32, deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import type { CellValue } from '../../src/domain/import-cells';
import type { TestApp } from './app';

export type Grid = Array<Array<CellValue | Date>>;

/**
 * A real xlsx written by ExcelJS, one worksheet per entry (hidden ones by name in `hidden`;
 * `merges`: ranges such as `A2:A4` merged in a sheet, by its name, as Excel writes them).
 */
export async function xlsxFile(sheets: Record<string, Grid>, options: { hidden?: string[]; merges?: Record<string, string[]> } = {}): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name, { state: options.hidden?.includes(name) ? 'hidden' : 'visible' });
    for (const row of rows) sheet.addRow(row);
    for (const range of options.merges?.[name] ?? []) sheet.mergeCells(range);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A csv as spreadsheet applications write it; `encoding` latin-style text is written byte for byte. */
export function csvFile(rows: Grid, options: { delimiter?: string; bom?: boolean; encoding?: 'utf-8' | 'utf-16le' | 'windows-1250' } = {}): Buffer {
  const delimiter = options.delimiter ?? ';';
  const text = rows
    .map((row) =>
      row
        .map((cell) => {
          const value = cell === null ? '' : cell instanceof Date ? cell.toISOString().slice(0, 10) : String(cell);
          return /["\n;,]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
        })
        .join(delimiter),
    )
    .join('\r\n');
  if (options.encoding === 'utf-16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  if (options.encoding === 'windows-1250') return encode1250(text);
  return Buffer.concat([options.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
}

// The Romanian letters of Windows-1250 (cedilla forms, as old Windows exports write them).
const CP1250: Record<string, number> = { ă: 0xe3, Ă: 0xc3, â: 0xe2, Â: 0xc2, î: 0xee, Î: 0xce, ş: 0xba, Ş: 0xaa, ţ: 0xfe, Ţ: 0xde, ș: 0xba, Ș: 0xaa, ț: 0xfe, Ț: 0xde };
function encode1250(text: string): Buffer {
  return Buffer.from([...text].map((ch) => CP1250[ch] ?? ch.charCodeAt(0)));
}

export interface ZipPart {
  name: string;
  data: Buffer;
  /** Declare another uncompressed size than the real one (a lying archive). */
  declaredSize?: number;
}

/** A minimal zip writer (deflate), enough to build hostile archives byte by byte. */
export function zipFile(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const compressed = deflateRawSync(part.data);
    const crc = crc32(part.data);
    const size = part.declaredSize ?? part.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(compressed.length, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    central.push(header, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The upload's multipart form, as curl -F would send it: the file, and `sheet` fields. */
function uploadForm(bytes: Buffer, filename: string, sheets: string[] = []): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  for (const sheet of sheets) form.append('sheet', sheet);
  return form;
}

/**
 * How long the last file's staging has taken so far, from its stager's claim (ms): right after
 * `upload` returned its outcome, the time the stager took to stage or refuse it, without the
 * body's trip, the queue and the decryption.
 */
export async function lastStagingMs(t: TestApp): Promise<number> {
  const [row] = await t.ctx.sql<
    { ms: number }[]
  >`SELECT (extract(epoch FROM clock_timestamp() - claimed_at) * 1000)::float8 AS ms FROM import_uploads ORDER BY batch_id DESC LIMIT 1`;
  return row!.ms;
}

/** POST /v1/import with a multipart body, as curl -F would send it: its answer (201 `queued`, or a refusal at once). */
export function uploadNow(t: TestApp, key: string, bytes: Buffer, filename = 'prestatii.xlsx', options: { sheets?: string[] } = {}) {
  return t.app.request('/v1/import', { method: 'POST', body: uploadForm(bytes, filename, options.sheets), headers: { 'X-API-Key': key } });
}

/**
 * An upload and its outcome once a stager has staged it, as one answer: the batch (201) once
 * it is `staged`, or the error its staging failed with (its status and six keys) — what the
 * upload itself answered before files were staged by stagers. A refusal at once is returned as
 * it came. Tests whose subject is the file's reading use this; the queue's own tests use uploadNow.
 */
export async function upload(t: TestApp, key: string, bytes: Buffer, filename = 'prestatii.xlsx', options: { sheets?: string[] } = {}): Promise<Response> {
  const res = await uploadNow(t, key, bytes, filename, options);
  if (res.status !== 201) return res;
  const { batch_id: batchId } = (await res.json()) as { batch_id: number };
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 10))) {
    const batch = (await (await t.call('GET', `/v1/import/${batchId}`, { key })).json()) as { status: string; error?: { status: number } };
    if (batch.status === 'failed' && batch.error) return Response.json(batch.error, { status: batch.error.status });
    if (batch.status !== 'queued' && batch.status !== 'staging') return Response.json(batch, { status: 201 });
    if (Date.now() - started > 30_000) throw new Error(`batch ${batchId} still ${batch.status}`);
  }
}

/** The same, over HTTP to a server running as a process at `base` (without a key where it needs none). */
export function uploadTo(base: string, bytes: Buffer, filename: string, key?: string) {
  return fetch(`${base}/v1/import`, { method: 'POST', body: uploadForm(bytes, filename), headers: key ? { 'X-API-Key': key } : {} });
}

/** The header most workshop exports in these tests use (Romanian, with diacritics). */
export const HEADER = ['Serie șasiu (VIN)', 'Nr. înmatriculare', 'Data prestației', 'Km intrare', 'Km ieșire', 'Cod operație', 'Denumire operație'];

/**
 * An OLE2 compound file whose directory names the given streams, as Office writes a
 * password-protected workbook (EncryptionInfo + EncryptedPackage) or an Excel 97 one (Workbook).
 */
export function compoundFile(streams: string[]): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x3e, 24);
  header.writeUInt16LE(3, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  const directory = Buffer.alloc(512);
  ['Root Entry', ...streams].slice(0, 4).forEach((name, i) => {
    const entry = directory.subarray(i * 128, (i + 1) * 128);
    Buffer.from(`${name}\0`, 'utf16le').copy(entry);
    entry.writeUInt16LE((name.length + 1) * 2, 64);
    entry[66] = i === 0 ? 5 : 2;
  });
  return Buffer.concat([header, directory, Buffer.alloc(1024)]);
}

/** The parts of a one-sheet workbook around a given sheet XML (for hostile archives). */
export function workbookParts(sheetXml: Buffer, declaredSize?: number): ZipPart[] {
  return [
    { name: 'xl/workbook.xml', data: Buffer.from('<workbook xmlns:r="r"><sheets><sheet name="Date" sheetId="1" r:id="rId1"/></sheets></workbook>') },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from('<Relationships><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>') },
    { name: 'xl/worksheets/sheet1.xml', data: sheetXml, declaredSize },
  ];
}
