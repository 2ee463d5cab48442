import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, csvFile, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

// Rows are classified once at upload and kept as plain, non-personal columns; what depends on
// the account's mappings, the day or later submissions is derived again only when it changed.
let t: TestApp;
let key: string;
// A clock the tests move: the day is part of what a derivation depended on.
let now = new Date('2025-03-20T10:00:00Z');

const VIN = (n: number) => `WDB1234561A${String(n).padStart(6, '0')}`;
const HEADER_DIRECT = [...HEADER, 'Cod prestație'];
const mapped = (n: number, code: string) => [VIN(n), `B-${n}-XYZ`, '14.03.2025', null, 1000 + n, code, 'Revizie periodică', null];
const direct = (n: number, date = '14.03.2025') => [VIN(n), `B-${n}-XYZ`, date, null, 1000 + n, null, null, 'OE-3'];

beforeAll(async () => {
  t = await startTestApp({}, { clock: () => now });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const commit = (batchId: number, body: unknown) => t.call('POST', `/v1/import/${batchId}/commit`, { key, body });
const facts = (batchId: number) =>
  t.ctx.sql<{ row_index: number; verdict: string; vin_hmac: string; codes: string }[]>`
    SELECT row_index, verdict, vin_hmac, codes FROM import_rows WHERE batch_id = ${batchId} ORDER BY row_index`;

describe('import rows at rest', () => {
  it('keep no VIN or plate in plain, in any column', async () => {
    const batchId = await stage(t, key, csvFile([HEADER, [VIN(1).toLowerCase(), 'CJ 10 XYZ', '14.03.2025', null, 1000, 'REV-01', 'Revizie']]), 'x.csv');
    const rows = await t.ctx.sql<{ text: string }[]>`SELECT row_to_json(r)::text AS text FROM import_rows r WHERE batch_id = ${batchId}`;
    expect(rows).toHaveLength(1);
    for (const secret of [VIN(1), VIN(1).toLowerCase(), 'CJ10XYZ', 'CJ 10 XYZ']) expect(rows[0]!.text).not.toContain(secret);
    const [row] = await facts(batchId);
    expect(row).toMatchObject({ verdict: 'needs_mapping', vin_hmac: expect.stringMatching(/^[\w-]{43}$/) });
  });
});

describe('derived once, derived again only where it changed', () => {
  it('a mapping saved after the upload changes the preview, and the commit gate follows it', async () => {
    await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'OP-9', cod_prestatie: 'OE-2' } });
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, mapped(10, 'REV-01'), direct(11), mapped(12, 'OP-9')] }));
    const before = await preview(t, key, batchId);
    expect(before).toMatchObject({ counts: { ok: 2, needs_mapping: 1 }, n_to_commit: 2, operations_to_map: [{ cod_op_service: 'REV-01', rows: 1 }] });
    // Rows the new mapping cannot change keep their columns (a registry code; another
    // workshop code): mark them and see the marks survive.
    await t.ctx.sql`UPDATE import_rows SET vin_hmac = 'marca' WHERE batch_id = ${batchId} AND row_index IN (2, 3)`;

    await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV-01', cod_prestatie: 'OE-3' } });
    const after = await preview(t, key, batchId);
    expect(after).toMatchObject({ counts: { ok: 3, needs_mapping: 0 }, n_to_commit: 3, operations_to_map: [] });
    expect(after.rows[0]).toMatchObject({ state: 'ok', prestatii: [{ cod_prestatie: 'OE-3', sursa: 'mapare' }] });
    expect(after.rows_hash).not.toBe(before.rows_hash);
    expect((await facts(batchId)).map((r) => r.vin_hmac === 'marca')).toEqual([false, true, true]);

    // The confirmation of the earlier preview no longer matches what would be committed.
    expect(await json(await commit(batchId, { n_confirmed: before.n_to_commit, rows_hash: before.rows_hash }))).toMatchObject({ status: 409, cod: 'IMPORT_CONFIRMARE_NUMAR' });
    expect(await json(await commit(batchId, { n_confirmed: 3, rows_hash: before.rows_hash }))).toMatchObject({ status: 409, cod: 'IMPORT_CONFIRMARE_HASH' });
    expect(await json(await commit(batchId, { n_confirmed: 3, rows_hash: after.rows_hash }))).toMatchObject({ inserted: 3, by_status: { queued: 3 } });
  });

  it('a text rule saved after the upload resolves the rows left to the rules', async () => {
    const batchId = await stage(
      t,
      key,
      await xlsxFile({ Date: [HEADER_DIRECT, [VIN(15), 'B15XYZ', '14.03.2025', null, 1015, 'X-77', 'Înlocuire plăcuțe frână', null], direct(16)] }),
    );
    expect((await preview(t, key, batchId)).counts).toMatchObject({ needs_mapping: 1, ok: 1 });
    await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'placute frana', cod_prestatie: 'OE-1', priority: 5 } });
    const after = await preview(t, key, batchId);
    expect(after.rows[0]).toMatchObject({ state: 'ok', prestatii: [{ cod_prestatie: 'OE-1', sursa: 'regula_text' }] });
  });

  it('a mapping saved between preview and commit refuses the commit', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, mapped(20, 'REV-02'), direct(21)] }));
    const seen = await preview(t, key, batchId);
    await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV-02', cod_prestatie: 'OE-3' } });
    expect(await json(await commit(batchId, { n_confirmed: seen.n_to_commit, rows_hash: seen.rows_hash }))).toMatchObject({ status: 409 });
    const [{ n }] = (await t.ctx.sql`SELECT count(*)::int AS n FROM submissions WHERE batch_id = ${batchId}`) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });

  it('an edit derives only its own row again', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, direct(30), direct(31)] }));
    await t.ctx.sql`UPDATE import_rows SET vin_hmac = 'marca' WHERE batch_id = ${batchId}`;
    const res = await json(await t.call('POST', `/v1/import/${batchId}/rand/1/editeaza`, { key, body: { vin: 'SCURT' } }));
    expect(res).toMatchObject({ row: { state: 'needs_data' }, counts: { ok: 1, needs_data: 1 } });
    const rows = await facts(batchId);
    expect(rows.map((r) => [r.verdict, r.vin_hmac === 'marca'])).toEqual([
      ['needs_data', false],
      ['queued', true],
    ]);
  });

  it('a reading stored after the upload holds the row for review at the next preview', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, direct(40)] }));
    expect((await preview(t, key, batchId)).counts.ok).toBe(1);
    await t.call('POST', '/v1/prezentari', {
      key,
      body: { vin: VIN(40), nrInm: 'B40XYZ', dataPrestatie: '2025-03-01', odometruFinal: 500000, prestatii: [{ cod_prestatie: 'OE-3' }] },
    });
    const p = await preview(t, key, batchId);
    expect(p.rows[0]).toMatchObject({ state: 'needs_review', review: { data: '2025-03-01', odometru: 500000, inclus: false } });
  });

  it('a row dated after today becomes valid when its day comes', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, direct(50, '21.03.2025'), direct(51)] }));
    const today = await preview(t, key, batchId);
    expect(today.rows[0]).toMatchObject({ state: 'needs_data', erori: [{ cod: 'DATA_IN_VIITOR' }] });
    now = new Date('2025-03-21T10:00:00Z');
    const tomorrow = await preview(t, key, batchId);
    expect(tomorrow).toMatchObject({ counts: { ok: 2, needs_data: 0 } });
    expect(tomorrow.rows_hash).not.toBe(today.rows_hash);
  });
});
