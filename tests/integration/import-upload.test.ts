import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BLOCK_CHARS } from '../../src/services/import/raw-blocks';
import { stagedRowsAt } from '../../src/services/import/rows';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload, xlsxFile } from '../helpers/import-files';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const ROW = ['WDB1234561A654321', 'B-123-ABC', 45731, 154000, 154200.0, 'SCH-ULEI; FILTRU', 'Schimb ulei; Filtru aer'];

describe('POST /v1/import happy path', () => {
  it('stages an xlsx with a Romanian header, a title row and blank lines, and suggests the mapping', async () => {
    const file = await xlsxFile({
      Prestații: [['Raport service martie 2025'], [], HEADER, ROW, [null, null], ['WDB1234561A654322', 'CJ10XYZ', '15.03.2025', '1.000', '1.250,0', 'OE-3', '']],
    });
    const res = await upload(t, key, file);
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({
      status: 'staged',
      row_count: 2,
      header: HEADER,
      mapping_source: 'suggested',
      drift: null,
      missing_fields: [],
      file: { kind: 'xlsx' },
      column_mapping: { vin: 0, nrInm: 1, dataPrestatie: 2, odometruInitial: 3, odometruFinal: 4, cod_op_service: 5, denumire_op: 6 },
      sheets: [{ name: 'Prestații', rows: 2, header_line: 3, staged: true }],
    });
    expect(body.batch_id).toBeTypeOf('number');
    expect(typeof body.header_signature).toBe('string');
  });

  it('stores rows encrypted at rest, with purge_after 90 days ahead on the batch and the rows', async () => {
    const res = await upload(t, key, await xlsxFile({ Date: [HEADER, ROW] }));
    const { batch_id } = await json(res);
    const [batch] = await t.ctx.sql<{ purge_after: string; created_at: string }[]>`SELECT purge_after, created_at FROM import_batches WHERE id = ${batch_id as number}`;
    const days = (Date.parse(batch!.purge_after) - Date.parse(batch!.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const rows = await t.ctx.sql<{ raw_enc: string | null; purge_after: string }[]>`SELECT raw_enc, purge_after FROM import_rows WHERE batch_id = ${batch_id as number}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.raw_enc).toBeNull();
    expect(Date.parse(rows[0]!.purge_after)).toBe(Date.parse(batch!.purge_after));
    // The raw cells live in the batch's encrypted, compressed blocks.
    const blocks = await t.ctx.sql<
      { block_no: number; raw_enc: string; purge_after: string }[]
    >`SELECT block_no, raw_enc, purge_after FROM import_row_blocks WHERE batch_id = ${batch_id as number}`;
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.raw_enc).toMatch(/^v1\./);
    expect(Date.parse(blocks[0]!.purge_after)).toBe(Date.parse(batch!.purge_after));
    const opened = JSON.parse(inflateRawSync(t.ctx.keyring.decryptBytes(blocks[0]!.raw_enc)).toString('utf8'));
    expect(opened[0].c[0]).toBe('WDB1234561A654321');
    const everything = JSON.stringify(await t.ctx.sql`SELECT * FROM import_rows WHERE batch_id = ${batch_id as number}`) + JSON.stringify(blocks);
    expect(everything).not.toContain('WDB1234561A654321');
    expect(everything).not.toContain('B123ABC');
  });

  it('keeps 256 rows per block and reads every row of a larger file back', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => [`WDB1234561A${String(100_000 + i)}`, 'B123ABC', '14.03.2025', 1000 + i, 2000 + i, 'OP1', 'Revizie']);
    const { batch_id } = await json(await upload(t, key, await xlsxFile({ Date: [HEADER, ...rows] })));
    const blocks = await t.ctx.sql<{ block_no: number }[]>`SELECT block_no FROM import_row_blocks WHERE batch_id = ${batch_id as number} ORDER BY block_no`;
    expect(blocks.map((b) => b.block_no)).toEqual([0, 1, 2]);
    for (const [page, row] of [
      [1, 1],
      [3, 256],
      [3, 257],
      [6, 600],
    ] as const) {
      const p = await json(await t.call('GET', `/v1/import/${batch_id}/preview?page=${page}&page_size=100`, { key }));
      const shown = (p.rows as Array<{ row_index: number; values: { vin: string; odometruFinal: number } }>).find((r) => r.row_index === row)!;
      expect(shown.values).toMatchObject({ vin: rows[row - 1]![0], odometruFinal: rows[row - 1]![4] });
    }
  });

  it('closes a block once its cells reach MAX_BLOCK_CHARS: long rows are read back whole, a few per block', async () => {
    // Sixty rows of a 30,000-character note each: 1.8 MB of cells, which made one block.
    const note = (i: number) => `${i}:${'x'.repeat(30_000)}`;
    const rows = Array.from({ length: 60 }, (_, i) => [`WDB1234561A${String(200_000 + i)}`, 'B123ABC', '14.03.2025', 1000 + i, 2000 + i, 'OP1', 'Revizie', note(i)]);
    const { batch_id, status } = await json(await upload(t, key, csvFile([[...HEADER, 'Observații'], ...rows]), 'lungi.csv'));
    expect(status).toBe('staged');
    const blocks = await t.ctx.sql<{ first_row: number; raw_enc: string }[]>`
      SELECT first_row, raw_enc FROM import_row_blocks WHERE batch_id = ${batch_id as number} ORDER BY block_no`;
    expect(blocks.length).toBeGreaterThan(1);
    let next = 1;
    for (const block of blocks) {
      const text = inflateRawSync(t.ctx.keyring.decryptBytes(block.raw_enc)).toString('utf8');
      // Closed by the row that took it to the bound.
      expect(text.length).toBeLessThan(MAX_BLOCK_CHARS + 31_000);
      expect(block.first_row).toBe(next);
      next += (JSON.parse(text) as unknown[]).length;
    }
    expect(next).toBe(61);
    const read = await stagedRowsAt(t.ctx.db, t.ctx.keyring, batch_id as number, [1, blocks[1]!.first_row - 1, blocks[1]!.first_row, 60]);
    expect(read.map((r) => r.raw.cells[7])).toEqual([note(0), note(blocks[1]!.first_row - 2), note(blocks[1]!.first_row - 1), note(59)]);
  });

  it('reads a batch whose blocks were written before they closed at a size (no first row: 256 rows each)', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => [`WDB1234561A${String(300_000 + i)}`, 'B123ABC', '14.03.2025', 1000 + i, 2000 + i, 'OP1', 'Revizie']);
    const { batch_id } = await json(await upload(t, key, csvFile([HEADER, ...rows]), 'vechi.csv'));
    await t.ctx.sql`UPDATE import_row_blocks SET first_row = NULL WHERE batch_id = ${batch_id as number}`;
    const read = await stagedRowsAt(t.ctx.db, t.ctx.keyring, batch_id as number, [1, 256, 257, 300]);
    expect(read.map((r) => r.raw.cells[0])).toEqual([rows[0]![0], rows[255]![0], rows[256]![0], rows[299]![0]]);
  });

  it('reads a csv with a BOM and ; separators', async () => {
    const res = await upload(t, key, csvFile([HEADER, ['WDB1234561A654321', 'B123ABC', '14.03.2025', '154000', '154200.0', 'OP1', 'Revizie']], { bom: true }), 'export.csv');
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ row_count: 1, header: HEADER, file: { kind: 'csv', encoding: 'utf-8', delimiter: ';' } });
  });

  it('reads a Windows-1250 csv with ș and ț and says which encoding it used', async () => {
    const res = await upload(
      t,
      key,
      csvFile(
        [
          ['Serie şasiu', 'Nr. înmatriculare', 'Dată', 'Km ieşire', 'Operaţie', 'Cod operaţie'],
          ['WDB1234561A654321', 'B123ABC', '14.03.2025', '154200', 'Revizie', 'OP1'],
        ],
        { encoding: 'windows-1250' },
      ),
      'export.csv',
    );
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.file).toMatchObject({ encoding: 'windows-1250' });
    expect(body.header).toEqual(['Serie şasiu', 'Nr. înmatriculare', 'Dată', 'Km ieşire', 'Operaţie', 'Cod operaţie']);
    expect(body.column_mapping).toMatchObject({ vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3, denumire_op: 4, cod_op_service: 5 });
  });

  it('reads a UTF-16 csv with a BOM (Excel "Unicode text")', async () => {
    const res = await upload(t, key, csvFile([HEADER, ROW.map(String)], { encoding: 'utf-16le', delimiter: '\t' }), 'export.txt');
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ row_count: 1, file: { encoding: 'utf-16le', delimiter: '\t' } });
  });

  it('reads the xlsx LibreOffice made from a csv (committed fixture)', async () => {
    const res = await upload(t, key, readFileSync(new URL('../fixtures/libreoffice-export.xlsx', import.meta.url)), 'libreoffice-export.xlsx');
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ row_count: 3, file: { kind: 'xlsx' }, missing_fields: [] });
  });
});

describe('POST /v1/import with several sheets', () => {
  const month = (vin: string) => [HEADER, [vin, 'B123ABC', '14.03.2025', 1, 2, 'OP1', 'Revizie']];

  it('stages every visible sheet with the same header by default and lists the others', async () => {
    const file = await xlsxFile(
      {
        Ianuarie: month('WDB1234561A000001'),
        Februarie: month('WDB1234561A000002'),
        Note: [
          ['Observații', 'Autor'],
          ['text', 'eu'],
        ],
        Arhivă: month('WDB1234561A000003'),
      },
      { hidden: ['Arhivă'] },
    );
    const body = await json(await upload(t, key, file));
    expect(body.row_count).toBe(2);
    expect(body.sheets).toEqual([
      expect.objectContaining({ name: 'Ianuarie', rows: 1, staged: true }),
      expect.objectContaining({ name: 'Februarie', rows: 1, staged: true }),
      expect.objectContaining({ name: 'Note', rows: 1, staged: false }),
      expect.objectContaining({ name: 'Arhivă', rows: 1, staged: false, hidden: true }),
    ]);
  });

  it('stages only the sheets chosen by name', async () => {
    const file = await xlsxFile({ Ianuarie: month('WDB1234561A000001'), Februarie: month('WDB1234561A000002') });
    const body = await json(await upload(t, key, file, 'x.xlsx', { sheets: ['Februarie'] }));
    expect(body.row_count).toBe(1);
    expect(body.sheets).toEqual([expect.objectContaining({ name: 'Ianuarie', staged: false }), expect.objectContaining({ name: 'Februarie', staged: true })]);
  });

  it('refuses a sheet name that does not exist, naming the sheets there are', async () => {
    const res = await upload(t, key, await xlsxFile({ Ianuarie: month('WDB1234561A000001') }), 'x.xlsx', { sheets: ['Martie'] });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body).toMatchObject({ cod: 'IMPORT_FOAIE' });
    expect(body.cauza).toContain('Ianuarie');
  });
});
