import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, csvFile, xlsxFile } from '../helpers/import-files';
import { preview, serial, stage, type Preview } from '../helpers/import-flow';

let t: TestApp;
let key: string;
let batchId: number;
let first: Preview;

const VIN = (n: number) => `WDB1234561A${String(n).padStart(6, '0')}`;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'SCH-ULEI', cod_prestatie: 'OE-2' } });
  // Already recorded through the API: a reading of 200,000 km on 2025-03-01 for VIN 4 ...
  await t.call('POST', '/v1/prezentari', {
    key,
    body: { vin: VIN(4), nrInm: 'B4XYZ', dataPrestatie: '2025-03-01', odometruFinal: 200000, prestatii: [{ cod_prestatie: 'OE-3' }] },
  });
  // ... and exactly the content of row 5.
  await t.call('POST', '/v1/prezentari', {
    key,
    body: {
      vin: VIN(5),
      nrInm: 'B5XYZ',
      dataPrestatie: '2025-03-14',
      odometruInitial: 99000,
      odometruFinal: 99500,
      prestatii: [{ cod_op_service: 'SCH-ULEI', denumire: 'Schimb ulei' }],
    },
  });
  const file = await xlsxFile({
    Date: [
      HEADER,
      [VIN(1), 'B-1-ABC', serial('2025-03-14'), 154000, 154200.0, 'SCH-ULEI', 'Schimb ulei'], // ok
      [VIN(2), 'B2ABC', '14.03.2025', null, 80000, 'REV-01', 'Revizie periodică'], // needs_mapping
      ['WDB123', 'B3ABC', '14.03.2025', null, 80000, 'SCH-ULEI', 'Schimb ulei'], // needs_data
      [VIN(4), 'B4XYZ', '10.03.2025', null, 150000, 'SCH-ULEI', 'Schimb ulei'], // needs_review
      [VIN(5), 'B5XYZ', '14.03.2025', '99.000', '99500,0', 'SCH-ULEI', 'Schimb ulei'], // already_sent
      [VIN(1), 'B-1-ABC', '14.03.2025', 154000, '154200.0', 'SCH-ULEI', 'Schimb ulei'], // duplicate_in_file
      [VIN(4), 'B4XYZ', '2025-02-01', null, 150000, 'SCH-ULEI', 'Schimb ulei'], // older than the reading: ok
    ],
  });
  batchId = await stage(t, key, file);
  first = await preview(t, key, batchId);
});
afterAll(() => t.close());

const row = (i: number) => first.rows.find((r) => r.row_index === i)!;

describe('GET /v1/import/{id}/preview: row states', () => {
  it('counts every state and says how many rows a commit would store', () => {
    expect(first.counts).toEqual({ ok: 2, needs_mapping: 1, needs_data: 1, needs_review: 1, already_sent: 1, duplicate_in_file: 1, left_out: 0 });
    expect(first.total_rows).toBe(7);
    expect(first.n_to_commit).toBe(3);
    expect(first.rows_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ok: values resolved as the API resolves them (serial date, float odometer, printed plate)', () => {
    expect(row(1)).toMatchObject({
      state: 'ok',
      sheet: 'Date',
      line: 2,
      values: {
        vin: VIN(1),
        nrInm: 'B1ABC',
        dataPrestatie: '2025-03-14',
        odometruInitial: 154000,
        odometruFinal: 154200,
        prestatii: [{ cod_op_service: 'SCH-ULEI', denumire: 'Schimb ulei' }],
      },
      prestatii: [{ cod_prestatie: 'OE-2', cod_client: 'SCH-ULEI', sursa: 'mapare' }],
      erori: [],
      motiv: null,
    });
  });

  it('needs_mapping: the code is listed among the operations to map, with a preselected suggestion', () => {
    expect(row(2)).toMatchObject({ state: 'needs_mapping', nemapate: ['REV-01'] });
    expect(first.operations_to_map).toEqual([{ cod_op_service: 'REV-01', denumire: 'Revizie periodică', rows: 1, sugestie: expect.objectContaining({ cod_prestatie: 'OE-3' }) }]);
  });

  it('needs_data: the errors in the API form {field, message, cod, problema, cauza, fix}', () => {
    expect(row(3).state).toBe('needs_data');
    expect(row(3).erori[0]).toEqual({
      field: 'vin',
      message: expect.any(String),
      cod: 'VIN_INVALID',
      problema: expect.any(String),
      cauza: expect.stringContaining('6 caractere'),
      fix: expect.any(String),
    });
  });

  it('needs_review: an odometer below one recorded earlier for the VIN; an older entry is not', () => {
    expect(row(4)).toMatchObject({ state: 'needs_review', review: { data: '2025-03-01', odometru: 200000, inclus: false } });
    expect(row(4).motiv).toContain('200000');
    expect(row(7)).toMatchObject({ state: 'ok', review: null });
  });

  it('already_sent: the same content as an API submission, found by its idempotency key', () => {
    expect(row(5)).toMatchObject({ state: 'already_sent', existing_submission: { status: 'queued' } });
  });

  it('duplicate_in_file: the same content as an earlier row, whatever its spelling', () => {
    expect(row(6)).toMatchObject({ state: 'duplicate_in_file', duplicate_of: 1 });
  });

  it('is stable: the same batch previews to the same rows_hash', async () => {
    expect((await preview(t, key, batchId)).rows_hash).toBe(first.rows_hash);
  });
});

describe('GET /v1/import/{id}/preview: paging and filters', () => {
  it('pages the rows while counts and rows_hash cover the whole batch', async () => {
    const page2 = await preview(t, key, batchId, '?page=2&page_size=3');
    expect(page2).toMatchObject({ page: 2, pages: 3, total_rows: 7, rows_hash: first.rows_hash });
    expect(page2.rows.map((r) => r.row_index)).toEqual([4, 5, 6]);
  });

  it('filters one state', async () => {
    const ok = await preview(t, key, batchId, '?state=ok');
    expect(ok.rows.map((r) => r.row_index)).toEqual([1, 7]);
  });

  it('answers 422 in the shape-error form for a bad query', async () => {
    const res = await t.call('GET', `/v1/import/${batchId}/preview?state=sent&page=0`, { key });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect((body.detail as Array<{ loc: string[] }>).map((d) => d.loc[1]).sort()).toEqual(['page', 'state']);
  });

  it('reads a csv row the same way as the xlsx row', async () => {
    const csvBatch = await stage(t, key, csvFile([HEADER, [VIN(9), 'B 9 ABC', '14.03.2025', '154.000', '154200,0', 'SCH-ULEI', 'Schimb ulei']]), 'x.csv');
    const { rows } = await preview(t, key, csvBatch);
    expect(rows[0]).toMatchObject({ state: 'ok', values: { nrInm: 'B9ABC', odometruInitial: 154000, odometruFinal: 154200 } });
  });

  it("answers the same 404 for another account's batch as for a missing one", async () => {
    const other = await t.createKey(await t.createAccount('Alt service'));
    const theirs = await t.call('GET', `/v1/import/${batchId}/preview`, { key: other });
    const missing = await t.call('GET', '/v1/import/999999/preview', { key });
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toBe(await missing.text());
  });
});
