import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suggestMapping } from '../../src/domain/import-header';
import { openXlsx } from '../../src/readers/xlsx';
import { openArchive } from '../../src/readers/zip';
import { XLSX_EXTRA_COLUMNS } from '../../src/services/import/export-failed';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { exportBytes, fieldsUnderEveryReader, HOSTILE, readSemicolonCsv, TRIGGER_AT_START } from '../helpers/csv';
import { makeSubmission } from '../helpers/factories';
import { HEADER, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HEADER_DIRECT = [...HEADER, 'Cod prestație'];
const VIN = (n: number) => `WDB1234561A${String(n).padStart(6, '0')}`;
const LIMITS = { maxRows: 1_000_000, maxColumns: 256, maxUncompressedBytes: 500_000_000 };

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

function expectDownloadHeaders(res: Response, type: string, filename: string) {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain(type);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${filename}"`);
}

async function readXlsx(res: Response) {
  const buffer = Buffer.from(await res.arrayBuffer());
  const book = await openXlsx(buffer, LIMITS);
  const rows = [];
  for await (const row of book.rows(book.sheets[0]!.name)) rows.push(row.cells);
  return { buffer, rows };
}

describe('GET /v1/audit/export is safe to open', () => {
  it('no field starts a formula under a ; or a , reader; BOM, ;, CRLF, dd.mm.yyyy, Bucharest time; nosniff and no-store', async () => {
    const auditKey = await t.createKey(await t.createAccount('Audit sigur'));
    const ids: number[] = [];
    for (const [i, hostile] of HOSTILE.entries()) {
      const id = (await json(await t.call('POST', '/v1/prezentari', { key: auditKey, body: makeSubmission({ vin: VIN(900 + i), dataPrestatie: '2025-03-14' }) })))
        .submission_id as number;
      await t.ctx.sql`UPDATE submissions SET motiv = ${hostile}, registry_id = ${hostile}, created_at = '2025-07-14T22:30:00Z', sent_at = '2025-01-14T22:30:00Z' WHERE id = ${id}`;
      ids.push(id);
    }
    const res = await t.call('GET', '/v1/audit/export?status=all', { key: auditKey });
    expectDownloadHeaders(res, 'text/csv', 'prezentari-all.csv');
    const { bom, text } = await exportBytes(res);
    expect(bom).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(fieldsUnderEveryReader(text).filter((f) => TRIGGER_AT_START.test(f))).toEqual([]);

    const rows = readSemicolonCsv(text);
    const header = rows[0]!;
    expect(rows).toHaveLength(HOSTILE.length + 1);
    const first = Object.fromEntries(header.map((h, i) => [h, rows[1]![i]]));
    expect(first).toMatchObject({
      submission_id: String(ids[0]),
      dataPrestatie: '14.03.2025',
      created_at: '15.07.2025 01:30:00',
      sent_at: '15.01.2025 00:30:00',
      motiv: "X;'=1+1;",
    });
  });
});

/** Sessions of this test database idle inside a transaction, polled until `done` holds (or 10 s). */
async function waitForIdleTransactions(done: (n: number) => boolean): Promise<number> {
  for (let i = 0; ; i++) {
    const [row] = await t.ctx.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`;
    if (done(row!.n) || i === 200) return row!.n;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /v1/import/{id}/export-failed is safe to open', () => {
  const hostileRows = () =>
    HOSTILE.map((hostile, i) => [VIN(100 + i), `B${i}ABC`, i === 0 ? new Date(Date.UTC(2025, 2, 14)) : '14.03.2025', null, 100_000 + i, 'NECUNOSCUT', hostile, null]);

  it('csv: no field starts a formula under any reader; BOM, ;, headers; a date cell as dd.mm.yyyy', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER, ...hostileRows()] }));
    const res = await t.call('GET', `/v1/import/${batchId}/export-failed`, { key });
    expectDownloadHeaders(res, 'text/csv', `import-${batchId}-netrimise.csv`);
    const { bom, text } = await exportBytes(res);
    expect(bom).toBe(true);
    expect(fieldsUnderEveryReader(text).filter((f) => TRIGGER_AT_START.test(f))).toEqual([]);
    const rows = readSemicolonCsv(text);
    expect(rows).toHaveLength(HOSTILE.length + 1);
    expect(rows[1]!.slice(0, 4)).toEqual(['1', 'Date', '2', 'needs_mapping']);
    expect(rows[1]![5 + 2]).toBe('14.03.2025');
    expect(rows[1]![5 + 6]).toBe("X;'=1+1;");
  });

  it('xlsx: the workshop columns as uploaded (inline strings, no formula), then the reason; headers; other formats are a 422', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER, ...hostileRows()] }));
    const res = await t.call('GET', `/v1/import/${batchId}/export-failed?format=xlsx`, { key });
    expectDownloadHeaders(res, XLSX_TYPE, `import-${batchId}-netrimise.xlsx`);
    const { buffer, rows } = await readXlsx(res);
    expect(rows[0]).toEqual([...HEADER, ...XLSX_EXTRA_COLUMNS]);
    expect(rows).toHaveLength(HOSTILE.length + 1);
    HOSTILE.forEach((hostile, i) => {
      const row = rows[i + 1]!;
      // An XML reader folds a CR into LF: the upload already read the cell so.
      expect(row.slice(0, HEADER.length)).toEqual([VIN(100 + i), `B${i}ABC`, '14.03.2025', null, 100_000 + i, 'NECUNOSCUT', hostile.replace(/\r\n?/g, '\n')]);
      expect(row.slice(HEADER.length + 1)).toEqual(['needs_mapping', i + 1, 'Date', i + 2]);
      expect(String(row[HEADER.length])).not.toBe('');
    });
    const zip = await openArchive(buffer, LIMITS.maxUncompressedBytes);
    let sheet = '';
    for await (const chunk of await zip.open('xl/worksheets/sheet1.xml')) sheet += String(chunk);
    expect(sheet).not.toMatch(/<f[ >]/);
    expect(sheet).not.toMatch(/t="(s|str)"/);
    expect(sheet).toContain('t="inlineStr"');

    const bad = await t.call('GET', `/v1/import/${batchId}/export-failed?format=pdf`, { key });
    expect(bad.status).toBe(422);
    expect(((await json(bad)).detail as Array<{ loc: unknown }>)[0]!.loc).toEqual(['query', 'format']);
    const other = await t.createKey(await t.createAccount('Alt service export'));
    expect((await t.call('GET', `/v1/import/${batchId}/export-failed?format=xlsx`, { key: other })).status).toBe(404);
  });

  it('the added xlsx columns are never taken for a field by the header mapping', () => {
    expect(suggestMapping(XLSX_EXTRA_COLUMNS)).toEqual({});
  });

  it('round trip: upload → commit → export-failed xlsx → re-upload reads the same rows with the same mapping, and adds only what was not there', async () => {
    const k = await t.createKey(await t.createAccount('Dus-întors'));
    const good = (n: number, code = 'OE-3') => [VIN(n), `B${n}XYZ`, '14.03.2025', null, 120_000 + n, null, null, code];
    const original = [
      HEADER_DIRECT,
      good(1),
      good(2),
      [VIN(3), 'B3XYZ', '14.03.2025', null, 120_003, 'REV-77', 'Revizie =1+1', null],
      good(1),
      ['SCURT', 'B4XYZ', '14.03.2025', null, 5, null, null, 'OE-3'],
    ];
    const first = await stage(t, k, await xlsxFile({ Date: original }));
    const p1 = await preview(t, k, first);
    expect(p1.counts).toMatchObject({ ok: 2, needs_mapping: 1, duplicate_in_file: 1, needs_data: 1 });
    expect((await t.call('POST', `/v1/import/${first}/commit`, { key: k, body: { n_confirmed: p1.n_to_commit, rows_hash: p1.rows_hash } })).status).toBe(200);

    const exported = await t.call('GET', `/v1/import/${first}/export-failed?format=xlsx`, { key: k });
    const { buffer, rows } = await readXlsx(exported);
    expect(rows.slice(1).map((r) => r.slice(0, HEADER_DIRECT.length))).toEqual([original[3], original[4]]);

    const second = await stage(t, k, buffer, 'netrimise.xlsx');
    const mapping = async (id: number) => (await json(await t.call('GET', `/v1/import/${id}/column-mapping`, { key: k }))).column_mapping as Record<string, number | null>;
    const before = await mapping(first);
    const after = await mapping(second);
    for (const [field, column] of Object.entries(before)) expect(after[field], field).toEqual(column);
    const p2 = await preview(t, k, second);
    expect(p2.total_rows).toBe(2);
    expect(p2.counts).toMatchObject({ needs_mapping: 1, already_sent: 1 });

    await t.call('POST', '/v1/mapari', { key: k, body: { cod_op_service: 'REV-77', cod_prestatie: 'OE-3' } });
    const p3 = await preview(t, k, second);
    expect(p3.counts).toMatchObject({ ok: 1, already_sent: 1 });
    const done = await json(await t.call('POST', `/v1/import/${second}/commit`, { key: k, body: { n_confirmed: p3.n_to_commit, rows_hash: p3.rows_hash } }));
    expect(done.inserted).toBe(1);
    const [count] = await t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE vin = ${VIN(3)}`;
    expect(count!.n).toBe(1);
  });

  // The export's transaction (its cursor) is still open, waiting for the client to read on.
  it('streams: the first bytes arrive while the rows are still being read from the cursor', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => [VIN(5000 + i), `B${i}QQQ`, '14.03.2025', null, 100_000 + i, 'NECUNOSCUT', `Operație lungă numărul ${i} `.repeat(4), null]);
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER, ...many] }));
    for (const format of ['csv', 'xlsx']) {
      const res = await t.call('GET', `/v1/import/${batchId}/export-failed?format=${format}`, { key });
      const reader = res.body!.getReader();
      const firstChunk = await reader.read();
      expect(firstChunk.done).toBe(false);
      // The producer is blocked on the unread response with its transaction open (not done).
      expect(await waitForIdleTransactions((n) => n === 1), format).toBe(1);
      let bytes = firstChunk.value!.length;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
      expect(bytes).toBeGreaterThan(100_000);
      expect(await waitForIdleTransactions((n) => n === 0), format).toBe(0);
    }
    // A client that goes away ends the export: its transaction does not wait for ever.
    const res = await t.call('GET', `/v1/import/${batchId}/export-failed?format=xlsx`, { key });
    const reader = res.body!.getReader();
    await reader.read();
    expect(await waitForIdleTransactions((n) => n === 1)).toBe(1);
    await reader.cancel();
    expect(await waitForIdleTransactions((n) => n === 0)).toBe(0);
  });
});
