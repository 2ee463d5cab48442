import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { openXlsx } from '../../src/readers/xlsx';
import { CSV_BOM, csvLine, neutraliseFormulas } from '../../src/services/audit/csv';
import { formatDate, formatInstant } from '../../src/services/export/format';
import { columnName, writeXlsx, type XlsxCell } from '../../src/services/export/xlsx-writer';
import { fieldsUnderEveryReader, HOSTILE, TRIGGER_AT_START } from '../helpers/csv';

describe('CSV cells under ; and , readers (OWASP CSV injection)', () => {
  it('no field any reader makes starts with a trigger, for every hostile cell', () => {
    const text = CSV_BOM + csvLine(['id', 'text', 'end']) + HOSTILE.map((h, i) => csvLine([i, h, 'z'])).join('') + csvLine(HOSTILE);
    const body = text.slice(1);
    const offending = fieldsUnderEveryReader(body).filter((f) => TRIGGER_AT_START.test(f));
    expect(offending).toEqual([]);
  });

  it('a ; reader gets every cell back whole, only with quotes added before triggers', () => {
    const rows = parse(HOSTILE.map((h) => csvLine(['1', h])).join(''), { delimiter: ';', record_delimiter: '\r\n' }) as string[][];
    expect(rows).toHaveLength(HOSTILE.length);
    rows.forEach((row, i) => {
      expect(row).toHaveLength(2);
      expect(row[1]!.replace(/'/g, '')).toBe(HOSTILE[i]!.replace(/'/g, ''));
    });
  });

  it('quotes every field, separates with ; and ends lines with CRLF', () => {
    expect(csvLine(['a', 1, null, 'b"c'])).toBe('"a";"1";"";"b""c"\r\n');
    expect(neutraliseFormulas('X;=1+1;')).toBe("X;'=1+1;");
    expect(neutraliseFormulas('-5')).toBe("'-5");
    expect(neutraliseFormulas('154200')).toBe('154200');
    expect(neutraliseFormulas('B 12 ABC; OE-3')).toBe('B 12 ABC; OE-3');
  });
});

describe('dates in exports', () => {
  it('dates are dd.mm.yyyy, instants Bucharest time (summer and winter)', () => {
    expect(formatDate('2025-03-14')).toBe('14.03.2025');
    expect(formatInstant(new Date('2025-07-14T22:30:00Z'))).toBe('15.07.2025 01:30:00');
    expect(formatInstant(new Date('2025-01-14T22:30:00Z'))).toBe('15.01.2025 00:30:00');
    expect(formatInstant('2025-07-14 22:30:00+00')).toBe('15.07.2025 01:30:00');
    expect(formatInstant(null)).toBe('');
    // Summer time starts at 03:00 and ends at 04:00 local (01:00 UTC).
    expect(formatInstant(new Date('2025-03-30T00:59:59Z'))).toBe('30.03.2025 02:59:59');
    expect(formatInstant(new Date('2025-03-30T01:00:00Z'))).toBe('30.03.2025 04:00:00');
    expect(formatInstant(new Date('2025-10-26T00:59:59Z'))).toBe('26.10.2025 03:59:59');
    expect(formatInstant(new Date('2025-10-26T01:00:00Z'))).toBe('26.10.2025 03:00:00');
  });
});

async function xlsxBuffer(header: string[], rows: XlsxCell[][]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await writeXlsx(
    async (c) => void chunks.push(Buffer.from(c)),
    { sheetName: 'Netrimise', header },
    async (row) => {
      for (const r of rows) await row(r);
    },
  );
  return Buffer.concat(chunks);
}

async function readBack(buffer: Buffer) {
  const book = await openXlsx(buffer, { maxRows: 1_000_000, maxColumns: 256, maxUncompressedBytes: 500_000_000 });
  const lines = [];
  for await (const row of book.rows(book.sheets[0]!.name)) lines.push(row.cells);
  return { book, lines };
}

describe('the streaming xlsx writer', () => {
  it('writes what our own reader reads back: texts as written (inline, never formulas), numbers, booleans', async () => {
    const rows: XlsxCell[][] = HOSTILE.map((h, i) => [h, i, i % 2 === 0, `Șase ăîâșț ${i}`]);
    rows.push(['bad\u0000xml\u0001\ud800chars', 1.5, null, '<tag a="b">&amp;</tag>']);
    const buffer = await xlsxBuffer(['Text', 'Nr', 'Bool', 'Diacritice'], rows);
    const xml = buffer.toString('latin1');
    expect(xml).not.toContain('<f>');
    const { book, lines } = await readBack(buffer);
    expect(book.sheets).toEqual([{ name: 'Netrimise', hidden: false }]);
    expect(lines[0]).toEqual(['Text', 'Nr', 'Bool', 'Diacritice']);
    for (const [i, h] of HOSTILE.entries()) expect(lines[i + 1]).toEqual([h, i, i % 2 === 0, `Șase ăîâșț ${i}`]);
    expect(lines[HOSTILE.length + 1]).toEqual(['badxmlchars', 1.5, null, '<tag a="b">&amp;</tag>']);
  });

  it('streams a large sheet in many deflated pieces that read back whole', async () => {
    const rows: XlsxCell[][] = Array.from({ length: 20_000 }, (_, i) => [`WDB1234561A${String(i).padStart(6, '0')}`, `rând ${i}`, 100_000 + i]);
    const chunks: number[] = [];
    const parts: Buffer[] = [];
    await writeXlsx(
      async (c) => {
        chunks.push(c.length);
        parts.push(Buffer.from(c));
      },
      { sheetName: 'S', header: ['VIN', 'Text', 'Km'] },
      async (row) => {
        for (const r of rows) await row(r);
      },
    );
    expect(chunks.length).toBeGreaterThan(10);
    const { lines } = await readBack(Buffer.concat(parts));
    expect(lines).toHaveLength(20_001);
    expect(lines[20_000]).toEqual(rows[19_999]);
  });

  it('names columns as a spreadsheet does', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(columnName)).toEqual(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });
});
