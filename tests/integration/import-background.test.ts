import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { createContext } from '../../src/runtime';
import { startStager, type Stager } from '../../src/services/import';
import { readUploadedFile, UPLOAD_PIECE_BYTES } from '../../src/services/import/queue';
import { MAX_CLAIMS } from '../../src/services/import/stager';
import { json, startTestApp, TEST_SECRET, TEST_STAGER, type TestApp } from '../helpers/app';
import { csvFile, HEADER, uploadNow, workbookParts, xlsxFile, zipFile, type Grid } from '../helpers/import-files';
import { preview, serial, settled, type Preview } from '../helpers/import-flow';

// An upload answers `queued` at once; a stager stages its first part (GATEWAY_IMPORT_FIRST_ROWS,
// 50 here) in a transaction of its own, then the rest: what the user sees must still be a file
// staged whole or not at all. The app runs no stager of its own: each test starts one when it
// wants the queue to move.

const FIRST_ROWS = 50;
const MAX_ROWS = 25_000;
let t: TestApp;
let key: string;
let otherKey: string;
let stager: Stager | null = null;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_IMPORT_FIRST_ROWS: String(FIRST_ROWS), GATEWAY_IMPORT_MAX_ROWS: String(MAX_ROWS), GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '8' }, { stager: false });
  const accountId = await t.createAccount();
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
afterAll(async () => {
  await stager?.stop();
  await t.close();
});

/** The queue moves: a stager on the app's context (one at a time). */
async function startStaging(): Promise<Stager> {
  stager ??= await startStager(t.ctx, { id: 'stager-a', ...TEST_STAGER });
  return stager;
}
async function stopStaging(): Promise<void> {
  await stager?.stop();
  stager = null;
}

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

/** An upload, answered at once: 201 with its batch `queued`. */
async function uploaded(bytes: Buffer, filename = 'mare.xlsx', k = key) {
  const res = await uploadNow(t, k, bytes, filename);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The same file staged with a first part that holds it all, by a server and stager of their own: the reference. */
async function stagedWhole(file: Buffer, filename: string): Promise<number> {
  const config = parseConfig({ GATEWAY_DATA_DIR: t.dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, GATEWAY_IMPORT_FIRST_ROWS: '100000', GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '8' });
  const whole = createContext({ config, databaseUrl: t.databaseUrl, secretKey: TEST_SECRET, processName: 'test' });
  const own = await startStager(whole, { id: 'whole', ...TEST_STAGER });
  try {
    await stopStaging();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), filename);
    const id = (await json(await createApp(whole).request('/v1/import', { method: 'POST', body: form, headers: { 'X-API-Key': key } }))).batch_id as number;
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged' });
    return id;
  } finally {
    await own.stop();
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

/** Holds the staging's end: its rest rewrites block 0 (rows 1-256, of which the first part wrote 50). */
async function holdBlockZero(batchId: number) {
  const holder = await t.ctx.sql.reserve();
  await holder`BEGIN`;
  // Until the first part committed, there is no block to hold.
  for (const waiting = Date.now(); (await holder`SELECT 1 FROM import_row_blocks WHERE batch_id = ${batchId} AND block_no = 0 FOR UPDATE`).length === 0; ) {
    expect(Date.now() - waiting, 'first part staged').toBeLessThan(15_000);
    await new Promise((r) => setTimeout(r, 10));
  }
  return async () => {
    await holder`ROLLBACK`;
    holder.release();
  };
}

describe('a file is queued, then staged by a stager', () => {
  let file: Buffer;
  let batchId: number;
  let done: Preview;

  beforeAll(async () => {
    file = await xlsxFile({ Date: [HEADER, ...rows(2000)] });
  });

  it('answers `queued` at once, before any of it is read; the stager stages its first rows first, readable while the rest stages', async () => {
    await stopStaging();
    const body = await uploaded(file);
    batchId = body.batch_id as number;
    expect(body).toMatchObject({ status: 'queued', rows_staged: 0, row_count: 0, header: [], file: { kind: 'xlsx', size: file.length } });
    expect(await preview(t, key, batchId)).toMatchObject({ status: 'queued', total_rows: 0, rows: [] });
    // Kept in pieces, each encrypted.
    const pieces = await t.ctx.sql<{ piece: number; piece_enc: string }[]>`SELECT piece, piece_enc FROM import_upload_pieces WHERE batch_id = ${batchId} ORDER BY piece`;
    expect(pieces.map((p) => p.piece)).toEqual([...Array(Math.ceil(file.length / UPLOAD_PIECE_BYTES)).keys()]);
    for (const p of pieces) expect(p.piece_enc).toMatch(/^v1\./);
    // A zip already: kept as it came.
    expect((await t.ctx.sql`SELECT deflated FROM import_uploads WHERE batch_id = ${batchId}`)[0]).toEqual({ deflated: false });

    await startStaging();
    const release = await holdBlockZero(batchId);
    try {
      expect(await json(await t.call('GET', `/v1/import/${batchId}`, { key }))).toMatchObject({
        status: 'staging',
        rows_staged: FIRST_ROWS,
        header: HEADER,
        column_mapping: { vin: 0 },
      });
      const first = await preview(t, key, batchId, '?page=1&page_size=20');
      expect(first).toMatchObject({ status: 'staging', rows_staged: FIRST_ROWS, total_rows: FIRST_ROWS, page: 1, pages: 3 });
      expect(first.rows).toHaveLength(20);
      expect(first.rows[0]).toMatchObject({ row_index: 1, line: 2, state: 'ok', values: { vin: VIN(1), odometruFinal: 100_001 } });
      expect(first.counts).toMatchObject({ needs_review: 1, needs_mapping: 7 });
    } finally {
      await release();
    }
    expect((await settled(t, key, batchId)).status).toBe('staged');
  });

  it('completes to the same batch as a staging in one transaction', async () => {
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

  it('is committed like any batch once staged', async () => {
    const res = await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: done.n_to_commit, rows_hash: done.rows_hash } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ inserted: 1711 });
  });
});

describe('a csv in the queue', () => {
  it('is kept deflated and encrypted, in a fraction of its pieces, and read back byte for byte', async () => {
    await stopStaging();
    const file = csvFile([HEADER, ...rows(3000)]);
    expect(file.length).toBeGreaterThan(UPLOAD_PIECE_BYTES / 8);
    const id = (await uploaded(file, 'mare.csv')).batch_id as number;
    expect((await t.ctx.sql`SELECT deflated FROM import_uploads WHERE batch_id = ${id}`)[0]).toEqual({ deflated: true });
    const pieces = await t.ctx.sql<{ piece_enc: string }[]>`SELECT piece_enc FROM import_upload_pieces WHERE batch_id = ${id} ORDER BY piece`;
    const kept = Buffer.concat(pieces.map((p) => t.ctx.keyring.decryptBytes(p.piece_enc)));
    expect(kept.length).toBeLessThan(file.length / 4);
    expect((await readUploadedFile(t.ctx, id, { deflated: true, maxBytes: file.length })).equals(file)).toBe(true);
    // Bounded as it is inflated: a stored file larger than the upload limit is refused, not held.
    await expect(readUploadedFile(t.ctx, id, { deflated: true, maxBytes: file.length - 1 })).rejects.toThrow();
    await startStaging();
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 3000 });
  });

  it('is staged whole by a stager whose body limit was lowered since it was queued', async () => {
    await stopStaging();
    const file = csvFile([HEADER, ...rows(3000)]);
    const limit = 64 * 1024;
    expect(file.length).toBeGreaterThan(limit);
    const id = (await uploaded(file, 'inainte-de-limita.csv')).batch_id as number;
    const lowered = await startStager({ ...t.ctx, config: { ...t.ctx.config, GATEWAY_MAX_BODY_BYTES: limit } }, { id: 'stager-limita-noua', ...TEST_STAGER });
    try {
      expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 3000 });
    } finally {
      await lowered.stop();
    }
  });
});

describe('while a file waits or stages', () => {
  it('refuses commit, mapping, edits and export with 409 IMPORT_IN_CURS; the preview still answers', async () => {
    await stopStaging();
    const id = (await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }))).batch_id as number;
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
      expect(error.cauza).toContain('așteaptă să fie încărcat');
    }
    await startStaging();
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 300 });
    expect((await t.call('POST', `/v1/import/${id}/rand/1/editeaza`, { key, body: { odometruFinal: 5 } })).status).toBe(200);
  });

  it('tells how far it got (rows_staged) while the preview shows the first part, without waiting for the staging', async () => {
    await startStaging();
    const many = Array.from({ length: 6_000 }, (_, i) => [VIN(10_000 + i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie']);
    const id = (await uploaded(csvFile([HEADER, ...many]), 'mare.csv')).batch_id as number;
    const release = await holdBlockZero(id);
    try {
      for (const waiting = Date.now(); ; await new Promise((r) => setTimeout(r, 20))) {
        const batch = await json(await t.call('GET', `/v1/import/${id}`, { key }));
        expect(batch.status).toBe('staging');
        if (batch.rows_staged === 5_000) break;
        expect(Date.now() - waiting, 'rows_staged 5000').toBeLessThan(15_000);
      }
      const started = performance.now();
      const p = await preview(t, key, id, '?page_size=10');
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(p).toMatchObject({ status: 'staging', rows_staged: 5_000, total_rows: FIRST_ROWS, counts: { ok: FIRST_ROWS } });
    } finally {
      await release();
    }
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 6_000 });
  });

  it("another account's waiting batch answers the same 404 as a missing one, on every route", async () => {
    await stopStaging();
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
    await startStaging();
    expect((await settled(t, key, id)).status).toBe('staged');
  });
});

const expectNoRows = async (batchId: number) => {
  for (const table of ['import_rows', 'import_row_blocks', 'import_batch_vin_submissions']) expect(await stored(table, batchId), table).toBe(0);
};

describe('a staging that fails', () => {
  it('past the row limit after the first part: failed with 413 IMPORT_PREA_MULTE_RANDURI, every row removed', async () => {
    await startStaging();
    const many = Array.from({ length: MAX_ROWS + 500 }, (_, i) => [VIN(i + 1), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie']);
    const body = await uploaded(csvFile([HEADER, ...many]), 'mare.csv');
    expect(body.status).toBe('queued');
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

  it('on a damaged part of the file: failed with 422 IMPORT_FISIER_CORUPT', async () => {
    await startStaging();
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
});

describe('a stager that stops or dies', () => {
  const big = () => csvFile([HEADER, ...Array.from({ length: 24_000 }, (_, i) => [VIN(40_000 + i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

  it('stopped mid-staging (SIGTERM): the file goes back to the queue without its rows, and the next stager stages it whole', async () => {
    await stopStaging();
    const id = (await uploaded(big(), 'mare.csv')).batch_id as number;
    // The staging's COPY waits for this lock: the stop then comes while it stages, whatever the machine's speed.
    const holder = await t.ctx.sql.reserve();
    await holder`BEGIN`;
    await holder`LOCK TABLE import_rows IN SHARE MODE`;
    try {
      await startStaging();
      for (const waiting = Date.now(); (await json(await t.call('GET', `/v1/import/${id}`, { key }))).status !== 'staging'; await new Promise((r) => setTimeout(r, 10))) {
        expect(Date.now() - waiting, 'claimed').toBeLessThan(20_000);
      }
      await new Promise((r) => setTimeout(r, 300));
      const stopping = stopStaging();
      await new Promise((r) => setTimeout(r, 200));
      await holder`ROLLBACK`;
      await stopping;
    } finally {
      holder.release();
    }
    expect(await json(await t.call('GET', `/v1/import/${id}`, { key }))).toMatchObject({ status: 'queued', rows_staged: 0 });
    expect(await stored('import_rows', id)).toBe(0);
    expect(await t.ctx.sql`SELECT claims, claimed_by FROM import_uploads WHERE batch_id = ${id}`).toEqual([{ claims: 0, claimed_by: null }]);
    await startStaging();
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 24_000 });
    expect(await stored('import_rows', id)).toBe(24_000);
  });

  it('whose heartbeat stopped (it died): its file is taken up again past the stale bound, without the rows it left', async () => {
    await stopStaging();
    const id = (await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }))).batch_id as number;
    // As a stager that died after its first part: a claim, a few rows, a heartbeat gone quiet.
    await t.ctx.sql`UPDATE import_batches SET status = 'staging', row_count = 2 WHERE id = ${id}`;
    await t.ctx.sql`UPDATE import_uploads SET claims = 1, claimed_by = 'dead', claimed_at = now(), heartbeat_at = now() WHERE batch_id = ${id}`;
    await t.ctx.sql`INSERT INTO import_rows (batch_id, row_index) VALUES (${id}, 1), (${id}, 2)`;
    const started = Date.now();
    await startStaging();
    expect(await settled(t, key, id)).toMatchObject({ status: 'staged', row_count: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual((TEST_STAGER.staleS - 1) * 1000);
    expect(await stored('import_rows', id)).toBe(300);
    expect(await t.ctx.sql`SELECT claims, claimed_by FROM import_uploads WHERE batch_id = ${id}`).toEqual([{ claims: 2, claimed_by: 'stager-a' }]);
  });

  it(`taken up ${MAX_CLAIMS} times already: failed with IMPORT_INTRERUPT instead of a fourth try`, async () => {
    await stopStaging();
    const id = (await uploaded(await xlsxFile({ Date: [HEADER, ...rows(300)] }))).batch_id as number;
    await t.ctx.sql`UPDATE import_batches SET status = 'staging' WHERE id = ${id}`;
    await t.ctx.sql`UPDATE import_uploads SET claims = ${MAX_CLAIMS}, claimed_by = 'dead', claimed_at = now(), heartbeat_at = now() - interval '1 hour' WHERE batch_id = ${id}`;
    await startStaging();
    expect(await settled(t, key, id)).toMatchObject({
      status: 'failed',
      error: { status: 503, cod: 'IMPORT_INTRERUPT', problema: 'Încărcarea fișierului a fost întreruptă.', fix: 'Încărcați fișierul din nou.', request_id: null },
    });
    await expectNoRows(id);
  });
});
