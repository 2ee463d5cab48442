import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { day, writeTable } from '../helpers/dbf-tables';
import { zipFile } from '../helpers/import-files';
import { preview, settled } from '../helpers/import-flow';

// The .dbf table of a desktop program through POST /v1/import, the preview and the code page
// override. Few first rows: a long table's rest is staged after its first part, and must be
// read in the code page the clerk chose too (the choice travels with the queued file).
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_IMPORT_FIRST_ROWS: '50' });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

function uploadDbf(bytes: Buffer, filename: string, codepage?: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  if (codepage !== undefined) form.append('codepage', codepage);
  return t.app.request('/v1/import', { method: 'POST', body: form, headers: { 'X-API-Key': key } });
}

/** The upload's outcome once staged: a refusal found by the stager answered as the upload's own (its status and body). */
async function outcome(res: Response): Promise<Response> {
  if (res.status !== 201) return res;
  const batch = await settled(t, key, (await json(res)).batch_id as number);
  const error = batch.error as { status: number } | undefined;
  return batch.status === 'failed' && error ? Response.json(error, { status: error.status }) : Response.json(batch, { status: 201 });
}

const RECORDS = 400;
const vin = (i: number) => `WVWZZZ1KZ6W${String(100_000 + i).padStart(6, '0')}`;

/** A FoxPro table in DOS 852 whose header says 1250 (a program that never set its code page right), with a memo per record and one deleted. */
async function foxProTable(languageDriver: number) {
  return writeTable({
    version: 0x30,
    encoding: 'cp852',
    languageDriver,
    fields: [
      { name: 'VIN', type: 'C', size: 17 },
      { name: 'NR_INMATR', type: 'C', size: 10 },
      { name: 'DATA', type: 'D', size: 8 },
      { name: 'KM_FINAL', type: 'N', size: 9, decimalPlaces: 0 },
      { name: 'COD_PREST', type: 'C', size: 10 },
      { name: 'DENUMIRE', type: 'C', size: 40 },
      { name: 'OBS', type: 'C', size: 4 },
    ],
    records: Array.from({ length: RECORDS }, (_, i) => ({
      VIN: vin(i),
      NR_INMATR: `B${100 + (i % 800)}ABC`,
      DATA: day('2025-03-14'),
      KM_FINAL: 10_000 + i,
      COD_PREST: 'OE-3',
      DENUMIRE: i === RECORDS - 1 ? 'Înlocuire plăcuţe faţă, Ştefan' : 'Schimb ulei şi filtru',
      OBS: '',
    })),
    deleted: [2],
    memo: { field: 'OBS', texts: Array.from({ length: RECORDS }, (_, i) => (i % 2 === 0 ? `Observaţie ${i}: ţeavă înlocuită` : null)) },
  });
}

describe('POST /v1/import with a .dbf table', () => {
  it('stages a FoxPro table with its .fpt from a zip: deleted record left out, typed values, the code page read from the header', async () => {
    const table = await foxProTable(0x40);
    const res = await uploadDbf(
      zipFile([
        { name: 'SERVICE.DBF', data: table.dbf },
        { name: 'SERVICE.FPT', data: table.memo! },
      ]),
      'service.zip',
    );
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
    const body = await json(res);
    const batch = await settled(t, key, body.batch_id as number);
    expect(batch.file).toMatchObject({ kind: 'dbf', dbf: { code_page: 852, code_page_from: 'antet', language_driver: 0x40, records: RECORDS, deleted: 1, memo: 'fpt' } });
    expect(batch.header).toEqual(['VIN', 'NR_INMATR', 'DATA', 'KM_FINAL', 'COD_PREST', 'DENUMIRE', 'OBS']);
    expect(batch.status).toBe('staged');
    expect(batch.row_count).toBe(RECORDS - 1);
    const page = await preview(t, key, body.batch_id as number, '?page=1');
    expect(page.rows[0]!.values).toMatchObject({ vin: vin(0), dataPrestatie: '2025-03-14', odometruFinal: 10_000 });
    // Record 3 was deleted: lines are record numbers, 3 is missing.
    expect(page.rows.slice(0, 3).map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it('reads the table again in the code page the clerk chose, the rows past the first part too', async () => {
    const table = await foxProTable(0xc8);
    const zip = zipFile([
      { name: 'SERVICE.DBF', data: table.dbf },
      { name: 'SERVICE.FPT', data: table.memo! },
    ]);
    const named = await json(await uploadDbf(zip, 'service.zip'));
    const misread = await settled(t, key, named.batch_id as number);
    expect(misread.file).toMatchObject({ dbf: { code_page: 1250, code_page_from: 'antet' } });
    expect(misread.status).toBe('staged');

    const res = await uploadDbf(zip, 'service.zip', '852');
    expect(res.status).toBe(201);
    const chosen = await json(res);
    const staged = await settled(t, key, chosen.batch_id as number);
    expect(staged.file).toMatchObject({ dbf: { code_page: 852, code_page_from: 'ales' } });
    expect(staged.status).toBe('staged');
    const last = (await preview(t, key, chosen.batch_id as number, '?page=4')).rows.at(-1)!;
    expect(last.line).toBe(RECORDS);
    expect(last.values.prestatii).toEqual([{ cod_prestatie: 'OE-3', denumire: 'Înlocuire plăcuţe faţă, Ştefan' }]);
    // Read as the header said, the same record was not.
    const before = (await preview(t, key, named.batch_id as number, '?page=4')).rows.at(-1)!;
    expect(before.values.prestatii).not.toEqual(last.values.prestatii);
  });

  it('answers a hostile table with the catalog words, never a 500', async () => {
    const table = await foxProTable(0x40);
    const lying = Buffer.from(table.dbf);
    lying.writeUInt32LE(2_000_000_000, 4);
    const corrupt = await outcome(
      await uploadDbf(
        zipFile([
          { name: 'T.DBF', data: lying },
          { name: 'T.FPT', data: table.memo! },
        ]),
        't.zip',
      ),
    );
    expect(corrupt.status).toBe(422);
    expect(await json(corrupt)).toMatchObject({ cod: 'IMPORT_DBF_CORUPT', problema: 'Tabela .dbf nu poate fi citită: antetul ei nu corespunde conținutului.' });

    const alone = await outcome(await uploadDbf(table.dbf, 'service.dbf'));
    expect(alone.status).toBe(422);
    expect((await json(alone)).cod).toBe('IMPORT_DBF_MEMO');

    const badPage = await uploadDbf(table.dbf, 'service.dbf', '9999');
    expect(badPage.status).toBe(422);
  });
});
