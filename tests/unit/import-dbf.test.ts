import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { openSpreadsheet } from '../../src/readers/open';
import type { ImportLimits, SheetRow, Spreadsheet } from '../../src/readers/types';
import { day, writeTable, type TableSpec } from '../helpers/dbf-tables';
import { zipFile } from '../helpers/import-files';

const limits: ImportLimits = { maxRows: 100_000, maxUncompressedBytes: 50 * 1024 * 1024, maxColumns: 256 };

async function rowsOf(sheet: Spreadsheet): Promise<SheetRow[]> {
  const out: SheetRow[] = [];
  for await (const row of sheet.rows(sheet.sheets[0]!.name)) out.push(row);
  return out;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const SERVICE_FIELDS: TableSpec['fields'] = [
  { name: 'VIN', type: 'C', size: 17 },
  { name: 'NRINM', type: 'C', size: 10 },
  { name: 'DATA', type: 'D', size: 8 },
  { name: 'KM', type: 'N', size: 9, decimalPlaces: 0 },
  { name: 'OPERATIE', type: 'C', size: 40 },
  { name: 'PRET', type: 'N', size: 10, decimalPlaces: 2 },
  { name: 'GARANTIE', type: 'L', size: 1 },
];

// Cedilla ş and ţ: the only ones 1250 and 852 have, as the desktop programs write them.
const RECORDS = [
  { VIN: 'WVWZZZ1KZ6W000001', NRINM: 'B123ABC', DATA: day('2025-03-14'), KM: 154200, OPERATIE: 'Înlocuire plăcuţe frână faţă', PRET: 350.5, GARANTIE: true },
  { VIN: 'WVWZZZ1KZ6W000002', NRINM: 'CJ10XYZ', DATA: day('2025-03-15'), KM: 87400, OPERATIE: 'Schimb ulei şi filtru', PRET: 0, GARANTIE: false },
  { VIN: 'WVWZZZ1KZ6W000003', NRINM: 'IS22ŞŢĂ', DATA: day('2025-03-16'), KM: 12000, OPERATIE: 'Revizie tehnică', PRET: 99.99, GARANTIE: false },
];

describe('.dbf tables written by an xBase writer', () => {
  it('reads a dBase III table in 1250 named by its language driver: header, typed values, diacritics as written', async () => {
    const table = await writeTable({ encoding: 'cp1250', languageDriver: 0xc8, fields: SERVICE_FIELDS, records: RECORDS });
    const sheet = await openSpreadsheet(table.dbf, limits);
    expect(sheet.kind).toBe('dbf');
    expect(sheet.dbf).toMatchObject({ codePage: 1250, codePageFrom: 'antet', languageDriver: 0xc8, records: 3, deleted: 0, memo: null });
    const rows = await rowsOf(sheet);
    expect(rows[0]).toEqual({ line: 0, cells: ['VIN', 'NRINM', 'DATA', 'KM', 'OPERATIE', 'PRET', 'GARANTIE'] });
    expect(rows[1]).toEqual({ line: 1, cells: ['WVWZZZ1KZ6W000001', 'B123ABC', '2025-03-14', 154200, 'Înlocuire plăcuţe frână faţă', 350.5, true] });
    expect(rows[3]!.cells.slice(1, 2)).toEqual(['IS22ŞŢĂ']);
    // The same values dbffile reads back.
    expect(rows.slice(1).map((r) => r.cells[4])).toEqual(table.readBack.map((r) => r.OPERATIE));
  });

  it('reads a Visual FoxPro table in DOS 852 (Romanian language driver), leaves deleted records out, and reads its memos from the .fpt in the zip', async () => {
    const texts = ['Client: Ştefan Ţurcanu; revizie completă', null, 'Garanţie până în 2026 - piesă înlocuită'];
    const table = await writeTable({
      version: 0x30,
      encoding: 'cp852',
      languageDriver: 0x40,
      fields: [...SERVICE_FIELDS, { name: 'OBS', type: 'C', size: 4 }],
      records: RECORDS.map((r) => ({ ...r, OBS: '' })),
      deleted: [1],
      memo: { field: 'OBS', texts },
    });
    // dbffile reads the same table (its memo from the .fpt beside it) without the deleted record.
    expect(table.readBack.map((r) => r.OBS)).toEqual([texts[0], texts[2]]);
    const zip = zipFile([
      { name: 'SERVICE.DBF', data: table.dbf },
      { name: 'SERVICE.FPT', data: table.memo! },
    ]);
    const sheet = await openSpreadsheet(zip, limits);
    expect(sheet.sheets).toEqual([{ name: 'SERVICE', hidden: false }]);
    expect(sheet.dbf).toMatchObject({ codePage: 852, codePageFrom: 'antet', records: 3, deleted: 1, memo: 'fpt' });
    const rows = await rowsOf(sheet);
    expect(rows.map((r) => r.line)).toEqual([0, 1, 3]);
    expect(rows[1]!.cells[7]).toBe(texts[0]);
    expect(rows[2]!.cells.slice(2, 5)).toEqual(['2025-03-16', 12000, 'Revizie tehnică']);
    expect(rows[2]!.cells[1]).toBe('IS22ŞŢĂ');
    expect(rows[2]!.cells[7]).toBe(texts[2]);
  });

  it('reads a dBase III table with its .dbt memo in 852', async () => {
    const texts = ['Înlocuit şi ambreiajul', 'Roţi echilibrate', null];
    const table = await writeTable({
      encoding: 'cp852',
      languageDriver: 0x64,
      fields: [...SERVICE_FIELDS, { name: 'NOTE', type: 'C', size: 10 }],
      records: RECORDS.map((r) => ({ ...r, NOTE: '' })),
      memo: { field: 'NOTE', texts },
    });
    expect(table.readBack.map((r) => r.NOTE ?? null)).toEqual(texts);
    const sheet = await openSpreadsheet(
      zipFile([
        { name: 'service.dbf', data: table.dbf },
        { name: 'service.dbt', data: table.memo! },
      ]),
      limits,
    );
    expect((await rowsOf(sheet)).slice(1).map((r) => r.cells[7])).toEqual(texts);
  });

  it('judges the code page of a table whose header names none, and the clerk may name another', async () => {
    const table = await writeTable({ encoding: 'cp852', fields: SERVICE_FIELDS, records: RECORDS });
    const judged = await openSpreadsheet(table.dbf, limits);
    expect(judged.dbf).toMatchObject({ codePage: 852, codePageFrom: 'text', languageDriver: 0 });
    expect((await rowsOf(judged))[1]!.cells[4]).toBe('Înlocuire plăcuţe frână faţă');

    // A header that is wrong (1250 named, 852 written): read as named, then as the clerk chose.
    const lying = await writeTable({ encoding: 'cp852', languageDriver: 0xc8, fields: SERVICE_FIELDS, records: RECORDS });
    expect((await rowsOf(await openSpreadsheet(lying.dbf, limits)))[3]!.cells[1]).not.toBe('IS22ŞŢĂ');
    const chosen = await openSpreadsheet(lying.dbf, { ...limits, codePage: 852 });
    expect(chosen.dbf).toMatchObject({ codePage: 852, codePageFrom: 'ales' });
    expect((await rowsOf(chosen))[3]!.cells[1]).toBe('IS22ŞŢĂ');
  });

  it('refuses a table with memo fields uploaded without its memo file', async () => {
    const table = await writeTable({
      version: 0x30,
      encoding: 'cp1250',
      languageDriver: 0xc8,
      fields: [...SERVICE_FIELDS, { name: 'OBS', type: 'C', size: 4 }],
      records: [{ ...RECORDS[0], OBS: '' }],
      memo: { field: 'OBS', texts: ['x'] },
    });
    const error = await refusal(openSpreadsheet(table.dbf, limits));
    expect(error.cod).toBe('IMPORT_DBF_MEMO');
    expect(error.cauza).toContain('OBS');
  });
});

describe('hostile .dbf tables', () => {
  const base = () => writeTable({ encoding: 'cp1250', languageDriver: 0xc8, fields: SERVICE_FIELDS, records: RECORDS });

  it('refuses a header announcing more records than the file holds', async () => {
    const { dbf } = await base();
    dbf.writeUInt32LE(4_000_000_000, 4);
    const started = performance.now();
    const error = await refusal(openSpreadsheet(dbf, limits));
    expect(error.cod).toBe('IMPORT_DBF_CORUPT');
    expect(error.cauza).toMatch(/anunță 4\.000\.000\.000 de înregistrări .* cuprinde doar 3/);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses a header announcing longer records than the file holds', async () => {
    const { dbf } = await base();
    dbf.writeUInt16LE(60_000, 10);
    expect((await refusal(openSpreadsheet(dbf, limits))).cod).toBe('IMPORT_DBF_CORUPT');
  });

  it('refuses a field past the record', async () => {
    const { dbf } = await base();
    // KM (the 4th field) made 200 bytes long: past the record's end.
    dbf[32 + 3 * 32 + 16] = 200;
    const error = await refusal(openSpreadsheet(dbf, limits));
    expect(error.cod).toBe('IMPORT_DBF_CORUPT');
    expect(error.cauza).toContain('Câmpul KM');
  });

  it('refuses field descriptors that run past the header (no terminator)', async () => {
    const { dbf } = await base();
    const headerLength = dbf.readUInt16LE(8);
    dbf[headerLength - 2] = 0x20;
    dbf.fill(0x41, 32 + 7 * 32, headerLength);
    expect((await refusal(openSpreadsheet(dbf, limits))).cod).toBe('IMPORT_DBF_CORUPT');
  });

  it('refuses a memo pointer past the memo file and a memo that announces more bytes than it has', async () => {
    const table = await writeTable({
      version: 0x30,
      encoding: 'cp1250',
      languageDriver: 0xc8,
      fields: [...SERVICE_FIELDS, { name: 'OBS', type: 'C', size: 4 }],
      records: [{ ...RECORDS[0], OBS: '' }],
      memo: { field: 'OBS', texts: ['o notă'] },
    });
    const headerLength = table.dbf.readUInt16LE(8);
    const past = Buffer.from(table.dbf);
    past.writeUInt32LE(1_000_000, headerLength + 1 + 17 + 10 + 8 + 9 + 40 + 10 + 1);
    const zipped = (dbf: Buffer, memo: Buffer) =>
      zipFile([
        { name: 'T.DBF', data: dbf },
        { name: 'T.FPT', data: memo },
      ]);
    const sheet = await openSpreadsheet(zipped(past, table.memo!), limits);
    expect((await refusal(rowsOf(sheet))).cod).toBe('IMPORT_DBF_CORUPT');

    const lyingMemo = Buffer.from(table.memo!);
    lyingMemo.writeUInt32BE(0x7fff_0000, 512 + 4);
    const error = await refusal(rowsOf(await openSpreadsheet(zipped(table.dbf, lyingMemo), limits)));
    expect(['IMPORT_DBF_CORUPT', 'IMPORT_CELULA_PREA_LUNGA']).toContain(error.cod);
  });

  it('refuses a zip bomb of a table by the zip limits', async () => {
    const { dbf } = await base();
    const bomb = zipFile([
      { name: 'T.DBF', data: dbf },
      { name: 'T.FPT', data: Buffer.alloc(60 * 1024 * 1024) },
    ]);
    expect((await refusal(openSpreadsheet(bomb, limits))).cod).toBe('IMPORT_ARHIVA_PREA_MARE');
    const lying = zipFile([{ name: 'T.DBF', data: Buffer.concat([dbf, Buffer.alloc(5_000_000)]), declaredSize: dbf.length }]);
    expect((await refusal(openSpreadsheet(lying, limits))).cod).toBe('IMPORT_ARHIVA_PREA_MARE');
  });

  it('refuses a code page it cannot read, naming the byte', async () => {
    const { dbf } = await base();
    dbf[29] = 0x6a; // Greek DOS 737
    const error = await refusal(openSpreadsheet(dbf, limits));
    expect(error.cod).toBe('IMPORT_DBF_CODARE');
    expect(error.cauza).toContain('737');
  });

  it('does not take a csv beginning with a digit for a Visual FoxPro table', async () => {
    const sheet = await openSpreadsheet(Buffer.from('0;1;2\r\nWVW;x;y\r\n'), limits);
    expect(sheet.kind).toBe('csv');
  });
});
