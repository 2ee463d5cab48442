import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload, xlsxFile } from '../helpers/import-files';
import { preview, serial } from '../helpers/import-flow';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const VIN = (n: number) => `WDB1234561A65${String(4000 + n).padStart(4, '0')}`;

describe('a file whose operation column holds registry codes', () => {
  it('reads the column as cod_prestatie, says so, and previews ok with no mapping (xlsx)', async () => {
    const rows = [1, 2, 3, 4].map((n) => [VIN(n), `B${n}ABC`, serial('2025-03-14'), 1000 * n, 1000 * n + 200, n === 4 ? 'OE-2; OE-3' : 'OE-3', 'Revizie']);
    const res = await upload(t, key, await xlsxFile({ Date: [HEADER, ...rows] }));
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.column_mapping).toMatchObject({ cod_prestatie: 5 });
    expect(body.column_mapping).not.toHaveProperty('cod_op_service');
    expect(body.observatii).toEqual([expect.stringContaining('„Cod operație” conține coduri ale registrului')]);
    const p = await preview(t, key, body.batch_id as number);
    expect(p.counts).toMatchObject({ ok: 4 });
    expect(p.operations_to_map).toEqual([]);
  });

  it('keeps a column of mostly workshop codes as cod_op_service (csv)', async () => {
    const rows = [1, 2, 3].map((n) => [VIN(10 + n), `B${n}XYZ`, '14.03.2025', 100, 300, n === 1 ? 'OE-3' : `INT-${n}`, 'Revizie']);
    const body = await json(await upload(t, key, csvFile([HEADER, ...rows]), 'prestatii.csv'));
    expect(body.column_mapping).toMatchObject({ cod_op_service: 5 });
    expect(body.observatii).toEqual([]);
  });
});
