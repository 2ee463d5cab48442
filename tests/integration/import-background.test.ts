import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { createContext } from '../../src/runtime';
import { failInterruptedStagings } from '../../src/services/import/staging-failure';
import { createImportStagings, LEASE_SPACE, type ImportStagings } from '../../src/services/import/stagings';
import { json, startTestApp, TEST_SECRET, type TestApp, WITHOUT_COST_BUDGET } from '../helpers/app';
import { csvFile, HEADER, upload, workbookParts, xlsxFile, zipFile, type Grid } from '../helpers/import-files';
import { preview, serial, settled, type Preview } from '../helpers/import-flow';

// A file longer than its first part (GATEWAY_IMPORT_FIRST_ROWS, 50 here) answers `staging`
// and is staged on in the background; what the user sees must still be a file staged whole
// or not at all.

const FIRST_ROWS = 50;
const MAX_ROWS = 8_000;
let t: TestApp;
let key: string;
let accountId: number;
let otherKey: string;
let original: ImportStagings;

beforeAll(async () => {
  // Past 256 rows of a background staging, a chunk thread shares the rest (as it is free).
  t = await startTestApp({ ...WITHOUT_COST_BUDGET, GATEWAY_IMPORT_FIRST_ROWS: String(FIRST_ROWS), GATEWAY_IMPORT_MAX_ROWS: String(MAX_ROWS), GATEWAY_IMPORT_THREAD_AFTER: '256' });
  original = t.ctx.importStagings;
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
  otherKey = await t.createKey(await t.createAccount('Altul'));
  expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV', cod_prestatie: 'OE-3' } })).status).toBe(200);
  // Row 1800's service, already sent through the API with the registry's code; row 30's and
  // row 1900's VINs, with a higher odometer recorded earlier (needs_review).
  const sent = await json(
    await t.call('POST', '/v1/prezentari', {
      key,
      body: { vin: VIN(1800), nrInm: 'B1ABC', dataPrestatie: '2025-03-14', odometruFinal: 101_800, prestatii: [{ cod_prestatie: 'OE-3' }] },
    }),
  );
  await t.ctx.sql`UPDATE submissions SET status = 'sent' WHERE id = ${sent.submission_id as number}`;
  for (const n of [30, 1900]) {
    await t.call('POST', '/v1/prezentari', {
      key,
      body: { vin: VIN(n), nrInm: 'B1ABC', dataPrestatie: '2025-03-01', odometruFinal: 999_999, prestatii: [{ cod_prestatie: 'OE-3' }] },
    });
  }
});
afterEach(async () => {
  if (t.ctx.importStagings !== original) await t.ctx.importStagings.stop();
  t.ctx.importStagings = original;
});
afterAll(() => t.close());

const VIN = (n: number) => `WDB1234561A${String(100_000 + n)}`;

/** n rows of every state: every 7th unmapped, row 1200 invalid, row 1500 a repeat of row 10, rows 30/1800/1900 as seeded. */
function rows(n: number): Grid {
  const row = (i: number) => [VIN(i), `B${i}ABC`, serial('2025-03-14'), null, 100_000 + i, i % 7 === 0 ? 'NECUNOSCUT' : 'REV', 'Revizie'];
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    if (i === 1200) return [VIN(i), 'B1ABC', 'nu e dată', null, 100_000 + i, 'REV', 'Revizie'];
    return row(i === 1500 ? 10 : i);
  });
}

/** A registry whose background stagings wait until `release` (a test's look at a batch mid-staging). */
function holdStagings(max = 2) {
  const held: Array<() => void> = [];
  t.ctx.importStagings = createImportStagings({ uploads: 8, perAccount: 8, background: max, schedule: (start) => held.push(start) });
  return () => {
    for (const start of held.splice(0)) start();
  };
}

async function uploaded(bytes: Buffer, filename = 'mare.xlsx', k = key) {
  const res = await upload(t, k, bytes, filename);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The same file staged whole before the upload answers, by a server whose first part holds it all: the reference. */
async function stagedWhole(file: Buffer, filename: string): Promise<number> {
  const config = parseConfig({ GATEWAY_DATA_DIR: t.dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, GATEWAY_IMPORT_FIRST_ROWS: '100000' });
  const whole = createContext({ config, databaseUrl: t.databaseUrl, secretKey: TEST_SECRET, processName: 'test' });
  try {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), filename);
    const res = await createApp(whole).request('/v1/import', { method: 'POST', body: form, headers: { 'X-API-Key': key } });
    const batch = await json(res);
    expect(batch).toMatchObject({ status: 'staged' });
    return batch.batch_id as number;
  } finally {
    await whole.close();
  }
}

/** Two batches of one file show the same preview: counts, rows_hash, and the rows of these pages. */
async function expectSamePreviews(batchId: number, reference: number, pages: string[]) {
  const [a, b] = [await preview(t, key, batchId, '?page_size=1000'), await preview(t, key, reference, '?page_size=1000')];
  expect({ ...a, batch_id: 0 }).toEqual({ ...b, batch_id: 0 });
  for (const page of pages) {
    const [pa, pb] = [await preview(t, key, batchId, page), await preview(t, key, reference, page)];
    expect(pa.rows).toEqual(pb.rows);
  }
}

const stored = async (table: string, batchId: number) => (await t.ctx.sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE batch_id = $1`, [batchId]))[0]!.n;

describe('a large file answers before it is staged', () => {
  let file: Buffer;
  let batchId: number;
  let done: Preview;

  beforeAll(async () => {
    file = await xlsxFile({ Date: [HEADER, ...rows(2000)] });
  });

  it('answers staging with its first rows; the first page is readable meanwhile', async () => {
    const release = holdStagings();
    const body = await uploaded(file);
    batchId = body.batch_id as number;
    expect(body).toMatchObject({ status: 'staging', rows_staged: FIRST_ROWS, row_count: FIRST_ROWS, header: HEADER, column_mapping: { vin: 0 } });
    expect(body).not.toHaveProperty('error');
    expect(await json(await t.call('GET', `/v1/import/${batchId}`, { key }))).toMatchObject({ status: 'staging', rows_staged: FIRST_ROWS });

    const first = await preview(t, key, batchId, '?page=1&page_size=20');
    expect(first).toMatchObject({ status: 'staging', rows_staged: FIRST_ROWS, total_rows: FIRST_ROWS, page: 1, pages: 3 });
    expect(first.rows).toHaveLength(20);
    expect(first.rows[0]).toMatchObject({ row_index: 1, line: 2, state: 'ok', values: { vin: VIN(1), odometruFinal: 100_001 } });
    expect(first.counts).toMatchObject({ needs_review: 1, needs_mapping: 7 });
    release();
    expect((await settled(t, key, batchId)).status).toBe('staged');
  });

  it('completes in the background to the same batch as a staging in one transaction', async () => {
    const batch = await settled(t, key, batchId);
    expect(batch).toMatchObject({ status: 'staged', row_count: 2000, sheets: [{ name: 'Date', rows: 2000, header_line: 1, staged: true }] });
    expect(batch).not.toHaveProperty('rows_staged');
    done = await preview(t, key, batchId, '?page_size=1000');
    expect(done.counts).toEqual({ ok: 1710, needs_mapping: 285, needs_data: 1, needs_review: 2, already_sent: 1, duplicate_in_file: 1, left_out: 0 });
    expect(await stored('import_row_blocks', batchId)).toBe(8);

    await expectSamePreviews(batchId, await stagedWhole(file, 'mare.xlsx'), ['?page=2&page_size=1000', '?state=needs_review', '?page=3&page_size=100']);
    expect((await preview(t, key, batchId, '?state=already_sent')).rows[0]).toMatchObject({ row_index: 1800, existing_submission: { status: 'sent' } });
    expect((await preview(t, key, batchId, '?state=duplicate_in_file')).rows[0]).toMatchObject({ row_index: 1500, duplicate_of: 10 });
  });

  it('shared with a chunk thread, stages the same batch as a staging in one transaction', async () => {
    // 7,000 rows: past 256 of the rest, the chunks the thread is free for are staged there.
    const large = await xlsxFile({ Date: [HEADER, ...rows(7_000)] });
    const id = (await uploaded(large)).batch_id as number;
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 7_000 });
    expect(await stored('import_row_blocks', id)).toBe(28);
    await expectSamePreviews(id, await stagedWhole(large, 'mare.xlsx'), ['?page=7&page_size=1000', '?state=needs_mapping&page=3&page_size=100', '?state=duplicate_in_file']);
  });

  it("gives way to another account's requests after each chunk its thread stages; the upload itself and its own polls are not another's", async () => {
    const large = await xlsxFile({ Date: [HEADER, ...rows(7_000)] });
    const served = vi.spyOn(t.ctx.activity, 'served');
    const giveWay = vi.spyOn(t.ctx.activity, 'giveWay');
    try {
      const id = (await uploaded(large)).batch_id as number;
      // The upload's own request was not counted; another account's call is, as its account.
      expect(served).not.toHaveBeenCalled();
      expect((await t.call('GET', '/v1/prezentari', { key: otherKey })).status).toBe(200);
      expect(served).toHaveBeenCalledWith(expect.any(Number));
      expect(served.mock.calls.every(([account]) => account !== accountId)).toBe(true);
      expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 7_000 });
      // 7,000 rows: 50 in the upload, 256 more on the event loop, the rest in chunks of 512 by the thread.
      expect(giveWay.mock.calls).toEqual(Array.from({ length: Math.ceil((7_000 - 50 - 256) / 512) }, () => [accountId]));
      expect(served).toHaveBeenCalledWith(accountId); // its polls, to which it never gives way
    } finally {
      served.mockRestore();
      giveWay.mockRestore();
    }
  });

  it('is committed like any batch once staged', async () => {
    const res = await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: done.n_to_commit, rows_hash: done.rows_hash } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ inserted: 1711 });
  });
});

describe('while a file is staging', () => {
  it('refuses commit, mapping, edits and export with 409 IMPORT_IN_CURS; the preview still answers', async () => {
    const release = holdStagings();
    const body = await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }));
    const id = body.batch_id as number;
    const p = await preview(t, key, id);
    const attempts: Array<[string, string, unknown?]> = [
      ['POST', `/v1/import/${id}/commit`, { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash }],
      ['POST', `/v1/import/${id}/column-mapping`, { column_mapping: { nrInm: 1 } }],
      ['POST', `/v1/import/${id}/rand/1/editeaza`, { odometruFinal: 5 }],
      ['POST', `/v1/import/${id}/rand/1/revizuire`, { include: true }],
      ['GET', `/v1/import/${id}/export-failed`],
    ];
    for (const [method, path, requestBody] of attempts) {
      const res = await t.call(method, path, { key, body: requestBody });
      expect(res.status, path).toBe(409);
      const error = await json(res);
      expect(error).toMatchObject({ status: 409, cod: 'IMPORT_IN_CURS', problema: 'Fișierul este încă în curs de încărcare.' });
      expect(error.cauza).toContain(`${FIRST_ROWS} rânduri încărcate până acum`);
    }
    release();
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 300 });
    expect((await t.call('POST', `/v1/import/${id}/rand/1/editeaza`, { key, body: { odometruFinal: 5 } })).status).toBe(200);
  });

  it('tells how far it got (rows_staged) while the preview shows the first part, without waiting for the staging', async () => {
    const release = holdStagings();
    const many = Array.from({ length: 6_000 }, (_, i) => [VIN(10_000 + i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie']);
    const id = (await uploaded(csvFile([HEADER, ...many]), 'mare.csv')).batch_id as number;
    // The staging's last step rewrites block 0 (rows 1-256, of which the first part wrote 50):
    // held here, the staging cannot end, while every row before it is read and counted.
    const holder = await t.ctx.sql.reserve();
    try {
      await holder`BEGIN`;
      await holder`SELECT 1 FROM import_row_blocks WHERE batch_id = ${id} AND block_no = 0 FOR UPDATE`;
      release();
      for (const waiting = Date.now(); ; await new Promise((r) => setTimeout(r, 20))) {
        const batch = await json(await t.call('GET', `/v1/import/${id}`, { key }));
        expect(batch.status).toBe('staging');
        if (batch.rows_staged === 5_000) break;
        expect(Date.now() - waiting, 'rows_staged 5000').toBeLessThan(10_000);
      }
      const started = performance.now();
      const p = await preview(t, key, id, '?page_size=10');
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(p).toMatchObject({ status: 'staging', rows_staged: 5_000, total_rows: FIRST_ROWS, counts: { ok: FIRST_ROWS } });
    } finally {
      await holder`ROLLBACK`;
      holder.release();
    }
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 6_000 });
  });

  it("another account's staging batch answers the same 404 as a missing one, on every route", async () => {
    const release = holdStagings();
    const id = (await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }))).batch_id as number;
    const paths: Array<[string, string, unknown?]> = [
      ['GET', ''],
      ['GET', '/preview'],
      ['GET', '/column-mapping'],
      ['POST', '/column-mapping', { column_mapping: { nrInm: 1 } }],
      ['POST', '/commit', { n_confirmed: 0, rows_hash: '0'.repeat(64) }],
      ['POST', '/rand/1/editeaza', { odometruFinal: 5 }],
      ['GET', '/export-failed'],
    ];
    for (const [method, suffix, body] of paths) {
      const theirs = await t.call(method, `/v1/import/${id}${suffix}`, { key: otherKey, body });
      const missing = await t.call(method, `/v1/import/999999${suffix}`, { key: otherKey, body });
      expect([theirs.status, missing.status], suffix).toEqual([404, 404]);
      expect(await theirs.text()).toBe(await missing.text());
    }
    release();
    expect((await settled(t, key, id)).status).toBe('staged');
  });

  it('stages in the upload itself when as many files stage in the background as allowed', async () => {
    const release = holdStagings(1);
    const background = await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }));
    expect(background.status).toBe('staging');
    const waited = await uploaded(await xlsxFile({ Date: [HEADER, ...rows(400)] }));
    expect(waited).toMatchObject({ status: 'staged', row_count: 400 });
    expect(t.ctx.importStagings.active()).toBe(1);
    release();
    expect((await settled(t, key, background.batch_id as number)).status).toBe('staged');
    // The batch reads "staged" once its last transaction commits; the place is given back just after.
    await vi.waitFor(() => expect(t.ctx.importStagings.active()).toBe(0), { timeout: 5_000 });
  });
});

describe('a staging that fails', () => {
  const expectNoRows = async (batchId: number) => {
    for (const table of ['import_rows', 'import_row_blocks', 'import_batch_vin_submissions']) expect(await stored(table, batchId), table).toBe(0);
  };

  it('past the row limit after the first part: failed with 413 IMPORT_PREA_MULTE_RANDURI, every row removed', async () => {
    const many = Array.from({ length: MAX_ROWS + 500 }, (_, i) => [VIN(i + 1), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie']);
    const body = await uploaded(csvFile([HEADER, ...many]), 'mare.csv');
    expect(body.status).toBe('staging');
    const id = body.batch_id as number;
    const batch = await settled(t, key, id);
    expect(batch).toMatchObject({
      status: 'failed',
      row_count: 0,
      error: { status: 413, cod: 'IMPORT_PREA_MULTE_RANDURI', problema: 'Fișierul are prea multe rânduri.', cauza: `Fișierul are peste ${MAX_ROWS} rânduri de date (limita).` },
    });
    expect((batch.error as { request_id: string }).request_id).toMatch(/\S/);
    await expectNoRows(id);
    const p = await preview(t, key, id);
    expect(p).toMatchObject({ status: 'failed', total_rows: 0, rows: [], error: batch.error });
    const commit = await t.call('POST', `/v1/import/${id}/commit`, { key, body: { n_confirmed: 0, rows_hash: p.rows_hash } });
    expect(commit.status).toBe(409);
    expect(await json(commit)).toMatchObject({ cod: 'IMPORT_ESUAT', cauza: expect.stringContaining('IMPORT_PREA_MULTE_RANDURI') });
  });

  it('on a damaged part of the file read in the background: failed with 422 IMPORT_FISIER_CORUPT', async () => {
    // A workbook whose first sheet is fine and whose second sheet's part is missing.
    const cell = (v: string | number) => (typeof v === 'number' ? `<c><v>${v}</v></c>` : `<c t="inlineStr"><is><t>${v}</t></is></c>`);
    const sheetRows = [HEADER, ...Array.from({ length: 200 }, (_, i) => [VIN(i + 1), 'B1ABC', '14.03.2025', '', 1000 + i, 'REV', 'Revizie'])];
    const xml = `<worksheet><sheetData>${sheetRows.map((r, i) => `<row r="${i + 1}">${r.map(cell).join('')}</row>`).join('')}</sheetData></worksheet>`;
    const parts = workbookParts(Buffer.from(xml));
    parts[0] = {
      name: 'xl/workbook.xml',
      data: Buffer.from('<workbook xmlns:r="r"><sheets><sheet name="Date" sheetId="1" r:id="rId1"/><sheet name="Lipsă" sheetId="2" r:id="rId2"/></sheets></workbook>'),
    };
    parts[1] = {
      name: 'xl/_rels/workbook.xml.rels',
      data: Buffer.from(
        '<Relationships><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="worksheet" Target="worksheets/sheet2.xml"/></Relationships>',
      ),
    };
    const id = (await uploaded(zipFile(parts))).batch_id as number;
    expect(await settled(t, key, id)).toMatchObject({ status: 'failed', error: { status: 422, cod: 'IMPORT_FISIER_CORUPT' } });
    await expectNoRows(id);
  });

  it('when the server stops: failed with IMPORT_INTRERUPT, and later uploads are interrupted too', async () => {
    holdStagings();
    const id = (await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }))).batch_id as number;
    await t.ctx.importStagings.stop();
    expect(await json(await t.call('GET', `/v1/import/${id}`, { key }))).toMatchObject({ status: 'failed', error: { status: 503, cod: 'IMPORT_INTRERUPT' } });
    await expectNoRows(id);
    const late = await upload(t, key, await xlsxFile({ Date: [HEADER, ...rows(300)] }));
    expect(late.status).toBe(503);
    expect(await json(late)).toMatchObject({ cod: 'IMPORT_INTRERUPT' });
  });

  it('left staging by a process that died: failed at the next start; one a live process stages is left alone', async () => {
    const [dead, alive] = [await uploadedStaged(), await uploadedStaged()];
    await t.ctx.sql`UPDATE import_batches SET status = 'staging' WHERE id IN (${dead}, ${alive})`;
    const lease = await t.ctx.sql.reserve();
    try {
      await lease`SELECT pg_advisory_lock(${LEASE_SPACE}, ${alive})`;
      expect(await failInterruptedStagings(t.ctx)).toEqual([dead]);
      expect(await json(await t.call('GET', `/v1/import/${dead}`, { key }))).toMatchObject({
        status: 'failed',
        error: { status: 503, cod: 'IMPORT_INTRERUPT', problema: 'Încărcarea fișierului a fost întreruptă.', fix: 'Încărcați fișierul din nou.', request_id: null },
      });
      await expectNoRows(dead);
      expect(await stored('import_rows', alive)).toBe(300);
    } finally {
      lease.release();
    }
  });
});

/** A 300-row batch staged to the end. */
async function uploadedStaged(): Promise<number> {
  const body = await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }));
  expect((await settled(t, key, body.batch_id as number)).status).toBe('staged');
  return body.batch_id as number;
}
