import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { upload, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;

// A header no suggestion can read: the user maps it by hand.
const ODD = ['Sasiu', 'Auto', 'Zi', 'Contor', 'Lucrare', 'Extra'];
const ROW = ['WDB1234561A000001', 'B1ABC', '14.03.2025', 1000, 'OE-3', 'x'];

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const save = (batchId: number, column_mapping: unknown, k = key) => t.call('POST', `/v1/import/${batchId}/column-mapping`, { key: k, body: { column_mapping } });

describe('GET/POST /v1/import/{id}/column-mapping', () => {
  it('reads the suggested mapping and names the required fields still unmapped', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [ODD, ROW] }));
    const res = await t.call('GET', `/v1/import/${batchId}/column-mapping`, { key });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ header: ODD, mapping_source: 'suggested', missing_fields: ['nrInm', 'dataPrestatie', 'odometruFinal'], column_mapping: { vin: 0 } });
  });

  it('saves a mapping by index or header text, re-derives the rows, and is used for the next file with this header', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [ODD, ROW] }));
    expect((await preview(t, key, batchId)).rows[0]!.state).toBe('needs_data');
    const res = await save(batchId, { vin: 0, nrInm: 'auto', dataPrestatie: 'Zi', odometruFinal: 3, cod_prestatie: 'Lucrare' });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      mapping_source: 'saved',
      missing_fields: [],
      column_mapping: { vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3, cod_prestatie: 4 },
    });
    expect((await preview(t, key, batchId)).rows[0]!.state).toBe('ok');

    const next = await json(await upload(t, key, await xlsxFile({ Altă: [ODD, ROW] })));
    expect(next).toMatchObject({ mapping_source: 'saved', drift: null, column_mapping: { nrInm: 1, cod_prestatie: 4 } });
  });

  it('reports drift against the saved mapping when the header changed, and carries over the columns still there', async () => {
    const drifted = ['Sasiu', 'Auto', 'Zi', 'Kilometri', 'Lucrare', 'Observații'];
    const body = await json(await upload(t, key, await xlsxFile({ Date: [drifted, ROW] })));
    expect(body).toMatchObject({
      mapping_source: 'suggested',
      drift: { columns_missing: ['Contor', 'Extra'], columns_new: ['Kilometri', 'Observații'] },
      // Carried over from the saved mapping; "Kilometri" is new and fuzzy-suggested.
      column_mapping: { vin: 0, nrInm: 1, dataPrestatie: 2, cod_prestatie: 4, odometruFinal: 3 },
      missing_fields: [],
    });
  });

  it('merges a partial save over the current mapping; null unmaps a field; "replace": true replaces the whole mapping', async () => {
    const own = await t.createKey(await t.createAccount('Service merge'));
    const batchId = await stage(t, own, await xlsxFile({ Date: [ODD, ROW] }));
    // The suggestion maps vin (column 0); saving only the other fields keeps it.
    const merged = await json(await save(batchId, { nrInm: 1, dataPrestatie: 'Zi', odometruFinal: 3, cod_prestatie: 4 }, own));
    expect(merged.column_mapping).toEqual({ vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3, cod_prestatie: 4 });
    expect((await preview(t, own, batchId)).rows[0]!.state).toBe('ok');
    // A correction of one field leaves the rest alone.
    expect((await json(await save(batchId, { cod_prestatie: null }, own))).column_mapping).toEqual({ vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3 });
    const replaced = await t.call('POST', `/v1/import/${batchId}/column-mapping`, { key: own, body: { column_mapping: { vin: 0 }, replace: true } });
    expect((await json(replaced)).column_mapping).toEqual({ vin: 0 });
  });

  it('refuses a column that does not exist or serves two fields, with 422', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [ODD, ROW] }));
    expect(await json(await save(batchId, { vin: 9 }))).toMatchObject({ status: 422, cod: 'IMPORT_MAPARE_INVALIDA' });
    expect(await json(await save(batchId, { vin: 'Nu există' }))).toMatchObject({ cod: 'IMPORT_MAPARE_INVALIDA' });
    expect(await json(await save(batchId, { vin: 0, nrInm: 'Sasiu' }))).toMatchObject({ cod: 'IMPORT_MAPARE_INVALIDA' });
    const shape = await save(batchId, { culoare: 1 });
    expect(shape.status).toBe(422);
    expect(await json(shape)).toHaveProperty('detail');
  });

  it("answers 404 for another account's batch and 409 once committed", async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [ODD, ROW] }));
    const other = await t.createKey(await t.createAccount('Alt service'));
    expect((await t.call('GET', `/v1/import/${batchId}/column-mapping`, { key: other })).status).toBe(404);
    expect((await save(batchId, { vin: 0 }, other)).status).toBe(404);
    const p = await preview(t, key, batchId);
    await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } });
    expect((await save(batchId, { vin: 0 })).status).toBe(409);
  });
});
