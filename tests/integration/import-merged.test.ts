import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, upload, workbookParts, xlsxFile, zipFile } from '../helpers/import-files';
import { preview, settled } from '../helpers/import-flow';

// Issue 31, item 6: a visit of several operations exported with its VIN, plate, date and km
// merged down the visit's rows. Each row is one operation; every one of them is the visit's.

let t: TestApp;
let key: string;

beforeAll(async () => {
  // A small row limit, so that the merged ranges' limit (5 per row, at least 1,000) is crossed cheaply.
  t = await startTestApp({ GATEWAY_IMPORT_MAX_ROWS: '50' });
  key = await t.createKey(await t.createAccount());
  for (const [code, registry] of [
    ['OP-1', 'OE-2'],
    ['OP-2', 'OE-3'],
    ['OP-3', 'OE-3'],
  ]) {
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: code, cod_prestatie: registry } })).status).toBe(200);
  }
});
afterAll(() => t.close());

const VIN = 'WDB1234561A654321';
const visit = (vin: string, plate: string, date: string, km: number) => [
  [vin, plate, date, km - 200, km, 'OP-1', 'Schimb ulei'],
  [null, null, null, null, null, 'OP-2', 'Revizie periodică'],
  [null, null, null, null, null, 'OP-3', 'Revizie tehnică'],
];
/** VIN, plate, date and both odometers merged down the three rows from `top`. */
const merged = (top: number) => ['A', 'B', 'C', 'D', 'E'].map((c) => `${c}${top}:${c}${top + 2}`);

describe('an xlsx with merged cells, uploaded', () => {
  it('finds the header under a merged title, and previews the continuation rows with the visit’s values', async () => {
    const file = await xlsxFile(
      {
        Octombrie: [['Raport lucrări octombrie 2026'], HEADER, ...visit(VIN, 'B-123-ABC', '14.10.2026', 154_200)],
        Noiembrie: [['Raport lucrări noiembrie 2026'], HEADER, ...visit('WDB1234561A000002', 'CJ-10-XYZ', '03.11.2026', 80_000)],
      },
      { merges: { Octombrie: ['A1:G1', ...merged(3)], Noiembrie: ['A1:G1', ...merged(3)] } },
    );
    const res = await upload(t, key, file);
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      header: HEADER,
      row_count: 6,
      sheets: [
        { name: 'Octombrie', rows: 3, header_line: 2, staged: true },
        { name: 'Noiembrie', rows: 3, header_line: 2, staged: true },
      ],
    });
    const id = body.batch_id as number;
    expect((await settled(t, key, id)).status).toBe('staged');

    const shown = await preview(t, key, id);
    expect(shown.counts).toMatchObject({ ok: 6, needs_data: 0 });
    const visits = [
      { sheet: 'Octombrie', vin: VIN, nrInm: 'B123ABC', dataPrestatie: '2026-10-14', odometruInitial: 154_000, odometruFinal: 154_200 },
      { sheet: 'Noiembrie', vin: 'WDB1234561A000002', nrInm: 'CJ10XYZ', dataPrestatie: '2026-11-03', odometruInitial: 79_800, odometruFinal: 80_000 },
    ];
    for (const { sheet, ...values } of visits) {
      const rows = shown.rows.filter((r) => r.sheet === sheet);
      expect(rows.map((r) => r.line)).toEqual([3, 4, 5]);
      for (const [i, row] of rows.entries()) {
        expect(row, `${sheet} line ${row.line}`).toMatchObject({ state: 'ok', erori: [], values: { ...values, prestatii: [{ cod_op_service: `OP-${i + 1}` }] } });
      }
    }
  });

  it('refuses a sheet declaring more merged ranges than its limit with 413, staging nothing', async () => {
    const ranges = Array.from({ length: 1_001 }, (_, i) => `<mergeCell ref="A${2 * i + 2}:A${2 * i + 3}"/>`).join('');
    const sheet = Buffer.from(`<worksheet><sheetData/><mergeCells count="1001">${ranges}</mergeCells></worksheet>`);
    const before = await t.ctx.sql`SELECT count(*)::int AS n FROM import_batches WHERE status <> 'failed'`;
    const res = await upload(t, key, zipFile(workbookParts(sheet)));
    const body = await json(res);
    expect(res.status).toBe(413);
    expect(body).toMatchObject({ cod: 'IMPORT_PREA_MULTE_CELULE_UNITE', cauza: 'Foaia „Date” are peste 1000 de zone de celule unite (îmbinate).' });
    expect(await t.ctx.sql`SELECT count(*)::int AS n FROM import_batches WHERE status <> 'failed'`).toEqual(before);
  });
});
