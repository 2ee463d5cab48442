import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, lastStagingMs, upload, workbookParts, zipFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

// Issue 32: every cell is bounded as it is read, and a file is refused as soon as a bound is crossed.
let t: TestApp;
let key: string;
const MB = 1024 * 1024;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_BODY_BYTES: String(20 * MB) });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

// What a refused file leaves: a `failed` batch at most, without rows and without the file's bytes.
const batches = async () =>
  Number(
    (
      await t.ctx.sql`SELECT (SELECT count(*) FROM import_batches WHERE status <> 'failed') + (SELECT count(*) FROM import_rows) + (SELECT count(*) FROM import_upload_pieces) AS n`
    )[0]!.n,
  );

/** The upload is refused with the code, nothing kept; returns the body and how long the answer took. */
async function refused(bytes: Buffer, filename: string, cod = 'IMPORT_CELULA_PREA_LUNGA', status = 413) {
  const before = await batches();
  const res = await upload(t, key, bytes, filename);
  // The stager's part: the file read until its refusal.
  const ms = await lastStagingMs(t);
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(status);
  expect(body).toMatchObject({ status, cod, problema: expect.any(String), cauza: expect.any(String), fix: expect.any(String) });
  expect(await batches()).toBe(before);
  return { body, ms };
}

const sheetXml = (cells: string) => Buffer.from(`<worksheet><sheetData>${cells}</sheetData></worksheet>`);

describe('csv: a long field is refused at once, whatever the shape of the file', () => {
  it('a 15 MB file of one unquoted field without a newline: 413 long before the seconds the whole parse took (15 MB sent over HTTP included)', async () => {
    const { body, ms } = await refused(Buffer.alloc(15 * MB, 'a'), 'one-field.csv');
    expect(body.cauza).toContain('Primul rând (antetul)');
    // Before: 422 IMPORT_FISIER_GOL after 10–23 s, the whole file parsed as "first rows".
    expect(ms).toBeLessThan(8_000);
    // A 15 MB body through the queue (encrypted, stored, decrypted) on a loaded machine.
  }, 90_000);

  it('a 15 MB line under a header: refused at its first 128 KB, quickly', async () => {
    const { body, ms } = await refused(Buffer.concat([Buffer.from('VIN;Nr. înmatriculare\n'), Buffer.alloc(15 * MB, 'a')]), 'long-line.csv');
    expect(body.cauza).toContain('Rândul 2');
    expect(ms).toBeLessThan(8_000);
  }, 90_000);

  it('a 1 MB field (quoted, with newlines inside) is refused; a cell of 32,767 characters is staged', async () => {
    await refused(
      csvFile([
        ['VIN', 'Denumire operație'],
        ['WDB1234561A654321', `x\n${'y'.repeat(MB)}`],
      ]),
      'mb.csv',
    );
    const { body } = await refused(
      csvFile([
        ['VIN', 'Denumire operație'],
        ['WDB1234561A654321', 'ș'.repeat(32_768)],
      ]),
      'cell.csv',
    );
    expect(body.cauza).toBe('Celula din rândul 2, coloana B are 32.768 de caractere (cel mult 32.767).');
    const ok = await upload(
      t,
      key,
      csvFile([
        ['VIN', 'Nr. înmatriculare', 'Observații'],
        ['WDB1234561A654321', 'B1', 'ș'.repeat(32_767)],
      ]),
      'max.csv',
    );
    expect(ok.status, await ok.clone().text()).toBe(201);
  });
});

describe('xlsx: a cell, a shared string or a sheet name past its bound is refused before it is built', () => {
  it('a shared string of 40 MB used by every cell: 413 naming it, quickly, not stored', async () => {
    const shared = Buffer.concat([Buffer.from('<sst><si><t>VIN</t></si><si><t>'), Buffer.alloc(40 * MB, 'a'), Buffer.from('</t></si></sst>')]);
    const rows = Array.from({ length: 20 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="s"><v>1</v></c></row>`).join('');
    const bomb = zipFile([...workbookParts(sheetXml(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>${rows}`)), { name: 'xl/sharedStrings.xml', data: shared }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    const { body, ms } = await refused(bomb, 'bomb.xlsx');
    expect(body.cauza).toContain('Textul comun nr. 2 (xl/sharedStrings.xml)');
    expect(ms).toBeLessThan(8_000);
  });

  it('a 20 MiB header cell (an inline string) is refused, naming sheet, row and column', async () => {
    const header = Buffer.concat([
      Buffer.from('<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>'),
      Buffer.alloc(20 * MB, 'H'),
      Buffer.from('</t></is></c></row>'),
    ]);
    const file = zipFile(workbookParts(Buffer.concat([Buffer.from('<worksheet><sheetData>'), header, Buffer.from('</sheetData></worksheet>')])));
    const { body } = await refused(file, 'header.xlsx');
    expect(body.cauza).toBe('Celula din foaia „Date”, rândul 1, coloana B are mai mult de 32.767 de caractere.');
  });

  it('a cell of 40,000 characters split in rich-text runs is refused by the sum of its runs', async () => {
    const runs = Array.from({ length: 4 }, () => `<r><t>${'x'.repeat(10_000)}</t></r>`).join('');
    const file = zipFile(workbookParts(sheetXml(`<row r="1"><c r="C1" t="inlineStr"><is>${runs}</is></c></row>`)));
    const { body } = await refused(file, 'runs.xlsx');
    expect(body.cauza).toBe('Celula din foaia „Date”, rândul 1, coloana C are mai mult de 32.767 de caractere.');
  });

  it('a sheet name of 300 characters is refused', async () => {
    const parts = workbookParts(sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>VIN</t></is></c></row>'));
    parts[0] = { name: 'xl/workbook.xml', data: Buffer.from(`<workbook xmlns:r="r"><sheets><sheet name="${'F'.repeat(300)}" sheetId="1" r:id="rId1"/></sheets></workbook>`) };
    const { body } = await refused(zipFile(parts), 'sheet.xlsx');
    expect(body.cauza).toContain('Numele unei foi are 300 de caractere');
  });
});

describe('a value the API would refuse holds its row', () => {
  it('a 600-character operation name: needs_data with TEXT_PREA_LUNG, and the commit stores at most 500 characters of it', async () => {
    const name = `Revizie ${'n'.repeat(592)}`;
    const rows = [
      ['VIN', 'Nr. înmatriculare', 'Data prestației', 'Km ieșire', 'Cod operație', 'Denumire operație'],
      ['WDB1234561A654321', 'B123ABC', '14.03.2025', 1000, 'OP1', name],
      ['VF1RFB00X12345678', 'B124ABC', '14.03.2025', 1001, 'OP1', 'Revizie'],
    ];
    const batchId = await stage(t, key, csvFile(rows), 'names.csv');
    const p = await preview(t, key, batchId);
    const held = p.rows.find((r) => r.row_index === 1)!;
    expect(held.state).toBe('needs_data');
    const error = held.erori.find((e) => e.cod === 'TEXT_PREA_LUNG')!;
    expect(error).toMatchObject({ field: 'prestatii' });
    expect(error.cauza).toContain('are 600 de caractere (cel mult 500)');
    expect(error.cauza).toContain('coloana 6');

    const res = await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } });
    expect(res.status, await res.clone().text()).toBe(200);
    const stored = await t.ctx.sql<{ status: string; payload: string; erori: string }[]>`
      SELECT status, payload_json::text AS payload, erori::text AS erori FROM submissions WHERE batch_id = ${batchId} AND vin = 'WDB1234561A654321'`;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.status).toBe('needs_data');
    expect(stored[0]!.erori).toContain('TEXT_PREA_LUNG');
    expect(stored[0]!.payload).not.toContain(name);
    expect(stored[0]!.payload).toContain(name.slice(0, 500));
  });
});
