import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;

const file = () =>
  xlsxFile({ Date: [HEADER, ['WDB123', 'B1ABC', '14.03.2025', null, 1000, 'OP-1', 'Revizie'], ['WDB1234561A000002', 'B2ABC', '14.03.2025', null, 2000, 'OP-1', 'Revizie']] });
const edit = (batchId: number, i: number | string, body: unknown, k = key) => t.call('POST', `/v1/import/${batchId}/rand/${i}/editeaza`, { key: k, body });

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'OP-1', cod_prestatie: 'OE-3' } });
});
afterAll(() => t.close());

describe('POST /v1/import/{id}/rand/{i}/editeaza', () => {
  it('applies the edit over the file value, encrypted, and answers the row as the preview now shows it', async () => {
    const batchId = await stage(t, key, await file());
    expect((await preview(t, key, batchId)).rows[0]!.state).toBe('needs_data');
    const res = await edit(batchId, 1, { vin: ' wdb1234561a000001 ', odometruFinal: '1.500' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      row: { row_index: 1, state: 'ok', values: { vin: 'WDB1234561A000001', odometruFinal: 1500 }, overridden_fields: ['vin', 'odometruFinal'] },
      counts: { ok: 2 },
      n_to_commit: 2,
    });
    const [stored] = await t.ctx.sql<{ override_json: string }[]>`SELECT override_json FROM import_rows WHERE batch_id = ${batchId} AND row_index = 1`;
    expect(stored!.override_json).toMatch(/^v1\./);
    expect(stored!.override_json).not.toContain('WDB1234561A000001');
  });

  it("clears a field's override with an empty value (or null), back to the file value", async () => {
    const batchId = await stage(t, key, await file());
    await edit(batchId, 2, { odometruFinal: 9999, nrInm: 'CJ1XYZ' });
    const cleared = await json(await edit(batchId, 2, { odometruFinal: '' }));
    expect(cleared).toMatchObject({ row: { values: { odometruFinal: 2000, nrInm: 'CJ1XYZ' }, overridden_fields: ['nrInm'] } });
    await edit(batchId, 2, { nrInm: null });
    const [stored] = await t.ctx.sql`SELECT override_json FROM import_rows WHERE batch_id = ${batchId} AND row_index = 2`;
    expect(stored!.override_json).toBeNull();
  });

  it('reads an override or a raw row that does not decrypt as empty values, never a 500', async () => {
    const batchId = await stage(t, key, await file());
    await t.ctx.sql`UPDATE import_rows SET override_json = 'v1.deadbeef.AAAA.BBBB.CCCC' WHERE batch_id = ${batchId} AND row_index = 2`;
    await t.ctx.sql`UPDATE import_rows SET raw_enc = 'not-a-ciphertext' WHERE batch_id = ${batchId} AND row_index = 1`;
    const p = await preview(t, key, batchId);
    expect(p.rows[0]).toMatchObject({ state: 'needs_data', values: { vin: '', nrInm: '' }, line: null });
    expect(p.rows[1]).toMatchObject({ state: 'ok', values: { odometruFinal: 2000 }, overridden_fields: [] });
    // The unreadable override is ignored: a new edit starts from nothing.
    expect(await json(await edit(batchId, 2, { nrInm: 'B7XYZ' }))).toMatchObject({ row: { overridden_fields: ['nrInm'] } });
    expect((await t.call('GET', `/v1/import/${batchId}/export-failed`, { key })).status).toBe(200);
  });

  it('reads a row staged before blocks from its own ciphertext, and the rows of a block that does not decrypt as empty', async () => {
    const batchId = await stage(t, key, await file());
    // A row as an earlier build stored it: its own ciphertext.
    const earlier = t.ctx.keyring.encrypt(JSON.stringify({ l: 9, c: ['WDB1234561A000007', 'B7ABC', '14.03.2025', null, 7000, 'OP-1', 'Revizie'] }));
    await t.ctx.sql`UPDATE import_rows SET raw_enc = ${earlier} WHERE batch_id = ${batchId} AND row_index = 1`;
    await t.ctx.sql`UPDATE import_row_blocks SET raw_enc = 'v1.deadbeef.AAAA.BBBB.CCCC' WHERE batch_id = ${batchId}`;
    const p = await preview(t, key, batchId);
    expect(p.rows[0]).toMatchObject({ line: 9, values: { vin: 'WDB1234561A000007', odometruFinal: 7000 } });
    expect(p.rows[1]).toMatchObject({ line: null, values: { vin: '', nrInm: '' } });
    expect((await t.call('GET', `/v1/import/${batchId}/export-failed`, { key })).status).toBe(200);
  });

  it('answers 409 once the batch is committed', async () => {
    const batchId = await stage(t, key, await file());
    const p = await preview(t, key, batchId);
    await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } });
    const res = await edit(batchId, 1, { vin: 'WDB1234561A000009' });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ cod: 'IMPORT_DEJA_CONFIRMAT' });
  });

  it("answers the same 404 for another account's batch, a missing batch and a missing row", async () => {
    const batchId = await stage(t, key, await file());
    const other = await t.createKey(await t.createAccount('Alt service'));
    const theirs = await edit(batchId, 1, { vin: 'X' }, other);
    const bodies = await Promise.all(
      [theirs, await edit(99_999, 1, { vin: 'X' }), await edit(batchId, 99, { vin: 'X' }), await edit(batchId, 'abc', { vin: 'X' })].map((r) => r.text()),
    );
    expect(theirs.status).toBe(404);
    expect(new Set(bodies).size).toBe(1);
    const [row] = await t.ctx.sql`SELECT override_json FROM import_rows WHERE batch_id = ${batchId} AND row_index = 1`;
    expect(row!.override_json).toBeNull();
  });

  it('answers 422 for a body of the wrong type, an unknown field or no field', async () => {
    const batchId = await stage(t, key, await file());
    for (const body of [{ vin: { x: 1 } }, { odometruFinal: [1] }, { vin: true }, { culoare: 'rosu' }, {}, 'not json', [1, 2]]) {
      const res = await edit(batchId, 1, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(await json(res)).toHaveProperty('detail');
    }
  });
});

describe('POST /v1/import/{id}/rand/{i}/revizuire', () => {
  it('answers 422 without a boolean include', async () => {
    const batchId = await stage(t, key, await file());
    expect((await t.call('POST', `/v1/import/${batchId}/rand/1/revizuire`, { key, body: { include: 'da' } })).status).toBe(422);
  });
});
