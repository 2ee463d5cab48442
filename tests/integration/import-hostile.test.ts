import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { compoundFile, csvFile, HEADER, lastStagingMs, upload, workbookParts, xlsxFile, zipFile } from '../helpers/import-files';

let t: TestApp;
let key: string;
const MB = 1024 * 1024;

// Small limits, so each can be crossed cheaply.
beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_BODY_BYTES: String(2 * MB), GATEWAY_IMPORT_MAX_ROWS: '50', GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES: String(20 * MB) });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const ROW = ['WDB1234561A654321', 'B123ABC', '14.03.2025', null, 1000, 'OP1', 'Revizie'];
// What a refused file leaves: a `failed` batch at most, without rows and without the file's bytes.
const batches = async () =>
  Number(
    (
      await t.ctx.sql`SELECT (SELECT count(*) FROM import_batches WHERE status <> 'failed') + (SELECT count(*) FROM import_rows) + (SELECT count(*) FROM import_upload_pieces) AS n`
    )[0]!.n,
  );

async function refused(bytes: Buffer, status: number, cod: string, filename = 'f.xlsx') {
  const before = await batches();
  const res = await upload(t, key, bytes, filename);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ status, cod, problema: expect.any(String), cauza: expect.any(String), fix: expect.any(String) });
  expect(await batches()).toBe(before);
  return body;
}

describe('limits', () => {
  it('refuses an upload over the body limit with 413', async () => {
    await refused(Buffer.alloc(3 * MB, 0x41), 413, 'PREA_MARE');
  });

  it('refuses more data rows than the limit with 413, staging nothing', async () => {
    const rows = Array.from({ length: 51 }, (_, i) => [`WDB1234561A${String(i).padStart(6, '0')}`, 'B1ABC', '14.03.2025', null, i, 'OP1', 'x']);
    const body = await refused(csvFile([HEADER, ...rows]), 413, 'IMPORT_PREA_MULTE_RANDURI', 'f.csv');
    expect(body.cauza).toContain('50');
    expect((await upload(t, key, csvFile([HEADER, ...rows.slice(0, 50)]), 'f.csv')).status).toBe(201);
  });

  it('refuses cells past column 256 with 413', async () => {
    const wide = [...HEADER, ...Array.from({ length: 260 }, (_, i) => `c${i}`)];
    await refused(await xlsxFile({ Date: [wide, ROW] }), 413, 'IMPORT_PREA_MULTE_COLOANE');
  });

  it('refuses a zip bomb by its declared size, before inflating anything', async () => {
    const sheet = Buffer.concat([Buffer.from('<worksheet><sheetData>'), Buffer.alloc(100 * MB, 0x20), Buffer.from('</sheetData></worksheet>')]);
    const bomb = zipFile(workbookParts(sheet));
    expect(bomb.length).toBeLessThan(MB);
    const rss = process.memoryUsage().rss;
    const body = await refused(bomb, 413, 'IMPORT_ARHIVA_PREA_MARE');
    expect(body.cauza).toContain(String(20 * MB));
    expect(process.memoryUsage().rss - rss).toBeLessThan(40 * MB);
    // The stager's part, from its claim to the refusal.
    expect(await lastStagingMs(t)).toBeLessThan(1000);
  });

  it('cuts off a part that inflates past the size it declares, without memory growing', async () => {
    const sheet = Buffer.concat([Buffer.from('<worksheet><sheetData>'), Buffer.alloc(100 * MB, 0x20), Buffer.from('</sheetData></worksheet>')]);
    const liar = zipFile(workbookParts(sheet, 2000));
    const rss = process.memoryUsage().rss;
    await refused(liar, 413, 'IMPORT_ARHIVA_PREA_MARE');
    expect(process.memoryUsage().rss - rss).toBeLessThan(40 * MB);
  });
});

describe('files that are not what they should be', () => {
  it('refuses other file types with 415, whatever their name', async () => {
    await refused(Buffer.from('%PDF-1.7\n1 0 obj'), 415, 'IMPORT_TIP_NESUPORTAT', 'prestatii.xlsx');
    await refused(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), 415, 'IMPORT_TIP_NESUPORTAT', 'poza.csv');
    await refused(zipFile([{ name: 'word/document.xml', data: Buffer.from('<w:document/>') }]), 415, 'IMPORT_TIP_NESUPORTAT', 'doc.xlsx');
    const xls = await refused(compoundFile(['Workbook']), 415, 'IMPORT_TIP_NESUPORTAT', 'vechi.xls');
    expect(xls.cauza).toContain('.xls');
  });

  it('refuses a password-protected workbook with a message that says so', async () => {
    await refused(compoundFile(['EncryptionInfo', 'EncryptedPackage']), 422, 'IMPORT_PAROLAT');
  });

  it('refuses an empty file, a file of blank lines and a header without rows', async () => {
    await refused(Buffer.alloc(0), 422, 'IMPORT_FISIER_GOL', 'gol.csv');
    await refused(Buffer.from('\r\n;;;\r\n\r\n'), 422, 'IMPORT_FISIER_GOL', 'gol.csv');
    await refused(await xlsxFile({ Date: [] }), 422, 'IMPORT_FISIER_GOL');
    const headerOnly = await refused(csvFile([HEADER]), 422, 'IMPORT_FISIER_GOL', 'antet.csv');
    expect(headerOnly.cauza).toContain('antet');
  });

  it('refuses a file whose first row is data, not a header', async () => {
    await refused(csvFile([ROW, ROW]), 422, 'IMPORT_FARA_ANTET', 'fara-antet.csv');
    await refused(await xlsxFile({ Date: [ROW] }), 422, 'IMPORT_FARA_ANTET');
  });

  it('refuses a csv in an encoding it cannot tell, with a precise message', async () => {
    const utf16NoBom = Buffer.from(HEADER.join(';'), 'utf16le');
    expect((await refused(utf16NoBom, 422, 'IMPORT_CODARE', 'f.csv')).cauza).toContain('UTF-16');
    const c1 = Buffer.concat([Buffer.from('VIN;Nr\r\n'), Buffer.from([0x81, 0x8d, 0x8f, 0x90]), Buffer.from(';x\r\n')]);
    expect((await refused(c1, 422, 'IMPORT_CODARE', 'f.csv')).cauza).toContain('Windows-1250');
  });

  it('refuses a damaged xlsx with 422', async () => {
    await refused(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), 422, 'IMPORT_FISIER_CORUPT');
    await refused(zipFile(workbookParts(Buffer.from('<worksheet><sheetData><row><c><v>1</v></row>'))), 422, 'IMPORT_FISIER_CORUPT');
  });
});

describe('malformed requests', () => {
  it('answers 422 in the shape-error form for a body that is not multipart, a broken multipart or no file', async () => {
    const json422 = async (res: Response) => {
      expect(res.status).toBe(422);
      const body = await json(res);
      expect(Object.keys(body)).toEqual(['detail']);
      return (body.detail as Array<{ type: string; loc: string[] }>)[0]!;
    };
    expect(await json422(await t.call('POST', '/v1/import', { key, body: { file: 'x' } }))).toMatchObject({ type: 'multipart_required' });
    const broken = await t.app.request('/v1/import', {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nno end',
    });
    expect(await json422(broken)).toMatchObject({ type: 'multipart_invalid' });
    const form = new FormData();
    form.append('fisier', 'text');
    expect(await json422(await t.app.request('/v1/import', { method: 'POST', body: form, headers: { 'X-API-Key': key } }))).toMatchObject({
      type: 'file_missing',
      loc: ['body', 'file'],
    });
  });

  it('needs the API key like every /v1 call', async () => {
    const res = await t.app.request('/v1/import', { method: 'POST', body: new FormData() });
    expect(res.status).toBe(401);
  });
});
