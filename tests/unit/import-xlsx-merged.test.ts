import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CellValue } from '../../src/domain/import-cells';
import { classifyLeadingRow } from '../../src/domain/import-header';
import { AppError } from '../../src/errors';
import { mergeLimit, readMergedRanges } from '../../src/readers/merged';
import type { ImportLimits } from '../../src/readers/types';
import { openXlsx } from '../../src/readers/xlsx';
import { HEADER, workbookParts, xlsxFile, zipFile } from '../helpers/import-files';

const LIMITS: ImportLimits = { maxRows: 1_000, maxColumns: 256, maxUncompressedBytes: 50 * 1024 * 1024 };
const VIN = 'WDB1234561A654321';
const TITLE = 'Raport lucrări noiembrie 2026';

async function rowsOf(file: Buffer, limits = LIMITS): Promise<Record<string, Array<{ line: number; cells: CellValue[] }>>> {
  const book = await openXlsx(file, limits);
  const out: Record<string, Array<{ line: number; cells: CellValue[] }>> = {};
  for (const sheet of book.sheets) {
    out[sheet.name] = [];
    for await (const row of book.rows(sheet.name)) out[sheet.name]!.push(row);
  }
  return out;
}

/** A visit of three operation lines as workshop software exports it: VIN, plate, date and km merged down the visit's rows. */
function visitSheet(vin: string, plate: string, first: number): { rows: Array<Array<CellValue>>; merges: string[] } {
  const top = first;
  const bottom = first + 2;
  return {
    rows: [
      [vin, plate, '14.11.2026', 154_000, 154_200, 'OP-1', 'Schimb ulei'],
      [null, null, null, null, null, 'OP-2', 'Înlocuire filtru ulei'],
      [null, null, null, null, null, 'OP-3', 'Înlocuire filtru aer'],
    ],
    merges: ['A', 'B', 'C', 'D', 'E'].map((c) => `${c}${top}:${c}${bottom}`),
  };
}

describe('xlsx merged cells', () => {
  it('fills a merged range down: the continuation rows of a visit get its VIN, plate, date and km', async () => {
    const visit = visitSheet(VIN, 'B-123-ABC', 3);
    const file = await xlsxFile({ Noiembrie: [[TITLE], HEADER, ...visit.rows] }, { merges: { Noiembrie: ['A1:G1', ...visit.merges] } });
    const rows = (await rowsOf(file)).Noiembrie!;
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
    const full = [VIN, 'B-123-ABC', '14.11.2026', 154_000, 154_200];
    expect(rows[2]!.cells).toEqual([...full, 'OP-1', 'Schimb ulei']);
    expect(rows[3]!.cells).toEqual([...full, 'OP-2', 'Înlocuire filtru ulei']);
    expect(rows[4]!.cells).toEqual([...full, 'OP-3', 'Înlocuire filtru aer']);
  });

  it('a title merged across the header columns stays one cell, so the header below it is still found', async () => {
    const file = await xlsxFile({ Date: [[TITLE], HEADER, [VIN, 'B1ABC', '14.11.2026', null, 1000, 'OP-1', 'Revizie']] }, { merges: { Date: ['A1:H1'] } });
    const rows = (await rowsOf(file)).Date!;
    expect(rows[0]!.cells).toEqual([TITLE]);
    expect(classifyLeadingRow(rows[0]!.cells)).toBe('title');
    expect(classifyLeadingRow(rows[1]!.cells)).toBe('header');
    // Two rows tall, too: the second row is the same title, still one cell.
    const tall = await xlsxFile({ Date: [[TITLE], [], HEADER] }, { merges: { Date: ['A1:H2'] } });
    const tallRows = (await rowsOf(tall)).Date!;
    expect(tallRows.map((r) => r.cells)).toEqual([[TITLE], [], HEADER]);
  });

  it('a header cell merged across two columns does not make two columns of the same name', async () => {
    const header = ['VIN', 'Nr. înmatriculare', 'Data', 'Kilometraj', null, 'Cod operație'];
    const file = await xlsxFile({ Date: [header, [VIN, 'B1ABC', '14.11.2026', 900, 1000, 'OP-1']] }, { merges: { Date: ['D1:E1'] } });
    const rows = (await rowsOf(file)).Date!;
    expect(rows[0]!.cells).toEqual(header);
  });

  it('each sheet has its own merged ranges', async () => {
    const a = visitSheet(VIN, 'B1ABC', 2);
    const b = visitSheet('WDB1234561A000002', 'CJ2XYZ', 3);
    const file = await xlsxFile(
      {
        Octombrie: [HEADER, ...a.rows, [null, null, null, null, null, 'OP-9', 'Alta']],
        Noiembrie: [HEADER, ['WDB1234561A000003', 'B3ABC', '01.11.2026', null, 5, 'OP-1', 'x'], ...b.rows],
      },
      { merges: { Octombrie: a.merges, Noiembrie: b.merges } },
    );
    const sheets = await rowsOf(file);
    expect(sheets.Octombrie!.map((r) => r.cells[0] ?? null)).toEqual(['Serie șasiu (VIN)', VIN, VIN, VIN, null]);
    expect(sheets.Noiembrie!.map((r) => r.cells[0] ?? null)).toEqual(['Serie șasiu (VIN)', 'WDB1234561A000003', 'WDB1234561A000002', 'WDB1234561A000002', 'WDB1234561A000002']);
    expect(sheets.Noiembrie![1]!.cells[1]).toBe('B3ABC');
  });

  it('a row inside a merged range with no value of its own stays blank (not one more visit)', async () => {
    const file = await xlsxFile(
      { Date: [HEADER, [VIN, 'B1ABC', '14.11.2026', null, 1000, 'OP-1', 'Revizie'], [null, null, null, null, null, 'OP-2', 'Ulei'], [null, null, null, null, null, '  ', null]] },
      { merges: { Date: ['A2:A4', 'B2:B4'] } },
    );
    const rows = (await rowsOf(file)).Date!;
    expect(rows[2]!.cells.slice(0, 2)).toEqual([VIN, 'B1ABC']);
    expect(rows[3]!.cells.slice(0, 2)).toEqual([null, null]);
  });

  it('reads ranges in a prefixed namespace, in any order, over chunks cut anywhere', async () => {
    const xml = Buffer.from(
      '<?xml version="1.0"?><x:worksheet xmlns:x="s"><x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>sheetData</x:t></x:is></x:c></x:row></x:sheetData >' +
        '<x:mergeCells count="3"><x:mergeCell ref="C5:D9"/><x:mergeCell ref="$A$2:$A$3"/><x:mergeCell ref="B1:C1"/><x:mergeCell ref="nonsense"/></x:mergeCells></x:worksheet>',
    );
    for (const size of [1, 2, 3, 7, 64, xml.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < xml.length; i += size) chunks.push(xml.subarray(i, i + size));
      const ranges = await readMergedRanges('p', 'Date', Readable.from(chunks), 256, 10);
      expect(ranges, `chunks of ${size}`).not.toBeNull();
      expect([...ranges!.top.slice(0, ranges!.length)], `chunks of ${size}`).toEqual([2, 5]);
      expect([...ranges!.column.slice(0, ranges!.length)]).toEqual([0, 2]);
      expect([...ranges!.bottom.slice(0, ranges!.length)]).toEqual([3, 9]);
    }
    const empty = Buffer.from('<worksheet><sheetData/><mergeCells><mergeCell ref="A1:A2"/></mergeCells></worksheet>');
    expect((await readMergedRanges('p', 'Date', Readable.from([empty]), 256, 10))!.length).toBe(1);
  });

  it('refuses a sheetData tag that never ends, without holding the part', async () => {
    const chunks = [Buffer.from('<worksheet><sheetData a="'), ...Array.from({ length: 1000 }, () => Buffer.alloc(16 * 1024, 0x78))];
    const started = performance.now();
    const error = await readMergedRanges('xl/worksheets/sheet1.xml', 'Date', Readable.from(chunks), 256, 10).catch((e: unknown) => e);
    expect(error).toMatchObject({ cod: 'IMPORT_FISIER_CORUPT' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('reads a sheet twice (ranges, then rows) within an uncompressed budget that holds it once', async () => {
    const sheet = Buffer.from(
      `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>VIN</t></is></c><c r="B1" t="inlineStr"><is><t>Nr</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>${VIN}</t></is></c><c r="B2"><v>1</v></c></row><row r="3"><c r="B3"><v>2</v></c></row>${'<row/>'.repeat(2000)}</sheetData><mergeCells><mergeCell ref="A2:A3"/></mergeCells></worksheet>`,
    );
    const parts = workbookParts(sheet);
    const budget = parts.reduce((n, p) => n + p.data.length, 0);
    const rows = (await rowsOf(zipFile(parts), { ...LIMITS, maxUncompressedBytes: budget })).Date!;
    expect(rows[2]!.cells).toEqual([VIN, 2]);
  });

  it('the pass for the ranges (own inflation, larger pieces) still refuses a part of another size than it declares', async () => {
    const sheet = Buffer.from(`<worksheet><sheetData>${'<row/>'.repeat(50_000)}</sheetData></worksheet>`);
    for (const declaredSize of [sheet.length - 1000, sheet.length + 1000]) {
      const error = await rowsOf(zipFile(workbookParts(sheet, declaredSize))).catch((e: unknown) => e);
      expect(error, `declared ${declaredSize}`).toMatchObject({ cod: 'IMPORT_ARHIVA_PREA_MARE', cauza: expect.stringContaining('altă dimensiune') });
    }
  });

  it('refuses a sheet that declares more merged ranges than its limit, without reading them all', async () => {
    const limit = mergeLimit(LIMITS.maxRows);
    const ranges = (n: number) => Array.from({ length: n }, (_, i) => `<mergeCell ref="A${2 * i + 1}:A${2 * i + 2}"/>`).join('');
    const sheet = (n: number) =>
      Buffer.from(`<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row></sheetData><mergeCells>${ranges(n)}</mergeCells></worksheet>`);
    expect((await rowsOf(zipFile(workbookParts(sheet(limit))))).Date).toHaveLength(1);
    // A hostile file: a million ranges, some kilobytes zipped.
    const hostile = zipFile(
      workbookParts(
        Buffer.concat([
          Buffer.from('<worksheet><sheetData/><mergeCells>'),
          Buffer.from('<mergeCell ref="A1:XFD1048576"/>'.repeat(1_000_000)),
          Buffer.from('</mergeCells></worksheet>'),
        ]),
      ),
    );
    for (const file of [zipFile(workbookParts(sheet(limit + 1))), hostile]) {
      const started = performance.now();
      const error = await rowsOf(file, { ...LIMITS, maxUncompressedBytes: 200 * 1024 * 1024 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ cod: 'IMPORT_PREA_MULTE_CELULE_UNITE' });
      expect((error as AppError).message).toContain(String(limit));
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('overlapping and sheet-tall ranges cost one look per column and row: the first range of a column wins', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i + 1}</v></c><c r="B${i + 1}"><v>0</v></c></row>`).join('');
    const overlapping = Array.from({ length: 900 }, (_, i) => `<mergeCell ref="A${i + 1}:XFD1048576"/>`).join('');
    const sheet = Buffer.from(`<worksheet><sheetData>${rows}</sheetData><mergeCells>${overlapping}</mergeCells></worksheet>`);
    const started = performance.now();
    const read = (await rowsOf(zipFile(workbookParts(sheet)))).Date!;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(read).toHaveLength(3000);
    expect(read.every((r) => r.cells[0] === 1 && r.cells[1] === 0)).toBe(true);
  });
});
